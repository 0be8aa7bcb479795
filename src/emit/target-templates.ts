// The eta templates of one deployment target (templates/<target>/<name>.eta), compiled once at start-up:
// a template that does not compile stops the service with the file's name rather than failing a request.
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { compileTemplate, renderTemplate, templateErrorMessage, type CompiledTemplate } from '../templating.js';

export class TargetTemplates<Name extends string> {
  private readonly templates = new Map<string, CompiledTemplate>();

  constructor(dir: string, target: string, names: readonly Name[]) {
    for (const name of names) {
      const file = path.join(dir, target, `${name}.eta`);
      try {
        this.templates.set(name, compileTemplate(fs.readFileSync(file, 'utf8')));
      } catch (e) {
        throw new Error(`bundle template ${file} does not compile: ${templateErrorMessage(e)}`);
      }
    }
  }

  render(name: Name, data: object): string {
    return renderTemplate(this.templates.get(name)!, data);
  }
}
