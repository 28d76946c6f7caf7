/** The package version, read once from package.json (from src/, dist/ and the CLI's bundle alike). */
import { readFileSync } from 'node:fs';
import { packageFile } from './spec/package-files.ts';

export const VERSION: string = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
