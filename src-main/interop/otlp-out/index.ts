export { OtlpLiveExport, type LiveExportOptions, type LiveExportReport } from './live-export';
export { OtlpTargetError, otlpTarget, parseOtlpHeaders, tracesUrl, type OtlpTarget } from './otlp-target';
export { DEFAULT_LIMITS, type ExportLimits, type ExportStats } from './collector-export';
