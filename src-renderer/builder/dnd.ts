/** The drag data type a palette template carries onto the canvas. */
export const TEMPLATE_MIME = 'application/x-fleetscope-template';
