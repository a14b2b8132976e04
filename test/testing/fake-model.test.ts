import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { FakeModel, call, calls, fail, say } from '../../testing/index.js';

// The fake model as a team's tests meet it: through the real openai client, over HTTP.

describe('FakeModel, through the openai client', () => {
  let fake: FakeModel;
  let openai: OpenAI;
  before(async () => {
    fake = await FakeModel.start();
    openai = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 2 });
  });
  after(() => fake.close());

  const ask = (input: string, more: OpenAI.Chat.ChatCompletionMessageParam[] = []) =>
    openai.chat.completions.create({
      model: 'any-model',
      messages: [
        { role: 'system', content: 'You refund orders.' },
        { role: 'user', content: input },
        ...more,
      ],
    });

  it('plays a script step by step: tool calls as OpenAI sends them, replies from the tool results', async () => {
    const conversation = fake.script(
      'Refund order A-1',
      calls(call('refund_order', { orderId: 'A-1', amount: 250 }, 'c1'), call('notify', { to: 'sam' })),
      (request) => say(`The tool said ${JSON.stringify(request.messages.at(-1))}`),
      say('Anything else?'),
    );

    const first = await ask('Refund order A-1');
    const [choice] = first.choices;
    assert.equal(choice?.finish_reason, 'tool_calls');
    const toolCalls = choice!.message.tool_calls!.map((c) => {
      assert.equal(c.type, 'function');
      return c as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    });
    assert.equal(toolCalls.length, 2);
    assert.equal(toolCalls[0]!.id, 'c1');
    assert.equal(toolCalls[0]!.function.name, 'refund_order');
    // Arguments travel as JSON text, as OpenAI sends them.
    assert.deepEqual(JSON.parse(toolCalls[0]!.function.arguments), { orderId: 'A-1', amount: 250 });
    // A call without an id gets a unique one.
    assert.match(toolCalls[1]!.id, /^call_/);

    const afterTools: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'assistant', content: null, tool_calls: toolCalls },
      { role: 'tool', tool_call_id: 'c1', content: '{"refunded":250}' },
      { role: 'tool', tool_call_id: toolCalls[1]!.id, content: 'sent' },
    ];
    const second = await ask('Refund order A-1', afterTools);
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.match(second.choices[0]?.message.content ?? '', /The tool said .*sent/);
    assert.equal(conversation.toolMessages().get('c1'), '{"refunded":250}');

    // The last step repeats for as long as the run asks.
    assert.equal((await ask('Refund order A-1', afterTools)).choices[0]?.message.content, 'Anything else?');
    assert.equal((await ask('Refund order A-1', afterTools)).choices[0]?.message.content, 'Anything else?');
    assert.equal(conversation.requests.length, 4);
    assert.equal(conversation.requests[0]?.model, 'any-model');
  });

  it('routes each conversation by its input, so runs share one fake model', async () => {
    fake.script('first run', say('one'), say('one again'));
    fake.script('second run', say('two'));
    assert.equal((await ask('first run')).choices[0]?.message.content, 'one');
    assert.equal((await ask('second run')).choices[0]?.message.content, 'two');
    assert.equal((await ask('first run')).choices[0]?.message.content, 'one again');
  });

  it('injects HTTP errors the client retries, and answers an unscripted input with a 400 naming it', async () => {
    const conversation = fake.script('flaky', fail(429), fail(503), say('made it'));
    assert.equal((await ask('flaky')).choices[0]?.message.content, 'made it');
    assert.equal(conversation.requests.length, 3, 'two retries by the openai client');

    await assert.rejects(ask('nobody scripted this'), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.match(error.message, /no script for input "nobody scripted this"/);
      return true;
    });
  });
});
