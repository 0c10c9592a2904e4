export { exportSession, exportToStream, type ExportOptions, type ExportResult } from './export-session';
export { EXPORT_FORMATS, type ExportFormat } from './render-types';
export { TransferError, type TransferErrorCode } from '../import/transfer-error';
export { exportComparison, writeComparison, type CompareRenderInput } from './compare-export';
export { Redactor } from './redact';
