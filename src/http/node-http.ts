// node:http through require rather than `import`: an ES import of a built-in copies every export, which
// runs node:http's lazy getters and loads the bundled fetch client (undici) for nothing, about 50 ms at
// every start (the CLI's generate only needs STATUS_CODES). require returns the object without that.
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
export default http;
