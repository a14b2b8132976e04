// `npm start`'s Slack settings: off with neither variable, on with both, refused with one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSlackConfig } from '../../demo/config/slack.js';

test('Slack is off without its variables, and on with the bot token and the signing secret', () => {
  assert.equal(loadSlackConfig({}), undefined);
  assert.deepEqual(
    loadSlackConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      SLACK_SIGNING_SECRET: '0123456789abcdef0123',
      SLACK_CHANNEL: 'C0123APPROVALS',
    }),
    {
      notifier: { botToken: 'xoxb-1-2-abc', channel: 'C0123APPROVALS' },
      router: { botToken: 'xoxb-1-2-abc', signingSecret: '0123456789abcdef0123' },
      channel: 'C0123APPROVALS',
    },
  );
});

test('one of the two alone, or a channel named rather than its id, is refused at start', () => {
  assert.throws(() => loadSlackConfig({ SLACK_BOT_TOKEN: 'xoxb-1-2-abc' }), /needs both/);
  assert.throws(() => loadSlackConfig({ SLACK_SIGNING_SECRET: '0123456789abcdef0123' }), /needs both/);
  assert.throws(
    () =>
      loadSlackConfig({
        SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
        SLACK_SIGNING_SECRET: '0123456789abcdef0123',
        SLACK_CHANNEL: '#approvals',
      }),
    /channel id/,
  );
});
