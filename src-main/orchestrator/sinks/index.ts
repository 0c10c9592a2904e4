export { MemorySink } from './memory-sink';
export { JsonlFileSink } from './jsonl-sink';
