// A bare OTLP/HTTP sink: reads each request body and answers 200 with an empty protobuf
// ExportTraceServiceResponse. The transport floor the receiver's figures are compared with.
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  let bytes = 0;
  request.on('data', (chunk) => (bytes += chunk.length));
  request.on('end', () => {
    response.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': 0 });
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
