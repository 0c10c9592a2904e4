// Runs after `npm install`. Never fails the install: it only reports what is available.
import { electronStatus, UNAVAILABLE_LINE } from './electron-status.mjs';

try {
  const status = electronStatus();
  if (!status.available) console.log(UNAVAILABLE_LINE);
} catch {
  console.log(UNAVAILABLE_LINE);
}
