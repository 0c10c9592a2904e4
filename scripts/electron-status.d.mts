export function electronStatus(): { available: true; path: string } | { available: false; reason: string };
export const UNAVAILABLE_LINE: string;
