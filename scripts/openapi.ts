// Writes the dashboard API's OpenAPI description to docs/dashboard-openapi.json (npm run openapi); a test
// fails when the checked-in file and the served one differ.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/web/openapi.js';

writeFileSync('docs/dashboard-openapi.json', `${JSON.stringify(openApiDocument(), null, 2)}\n`);
