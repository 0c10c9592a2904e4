export { fileHash, importFile, type ImportOptions, type ImportResult } from './import-file';
export { IMPORT_FORMATS, type ImportFormat } from './detect';
export { FLEETSCOPE_FORMAT, FLEETSCOPE_VERSION } from './fleetscope-json';
export { TransferError, type TransferErrorCode } from './transfer-error';
