// `node dist/main.js` (what `npm start` runs): the service with its settings from the environment.
import { serve } from './serve.js';

void serve();
