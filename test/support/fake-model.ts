// The scripted fake model is part of the library (countersign/testing); the tests import it here.
export {
  FakeModel,
  call,
  calls,
  fail,
  say,
  type ChatCompletionRequest,
  type Conversation,
  type ModelReply,
  type ScriptStep,
} from '../../testing/fake-model.js';
