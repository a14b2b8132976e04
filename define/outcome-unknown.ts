// Declared with Countersign's other errors; tools import it from here, beside defineTool.
export { OutcomeUnknownError } from '../errors/outcome-unknown.js';
