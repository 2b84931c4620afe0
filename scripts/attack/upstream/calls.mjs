// Upstream attacks during calls: tasks that never end (cut at maxCallMs), and floods of list_changed,
// elicitations, cancels and progress beside a call never answered.
import { beside, gateway, HOSTILE, shown, textOf } from '../lib/upstream-gateway.mjs';

export default [
  {
    name: 'endless-tasks',
    title: 'plain calls of a tool that requires a task upstream, whose tasks never end (poll again at once)',
    target: false,
    async run(ctx) {
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE], stderr: 'ignore', timeoutMs: 500, maxCallMs: 1_500 },
      });
      const CALLS = 10;
      try {
        await beside(ctx, gw, async () => {
          // Answered at maxCallMs each, their tasks cancelled; before, never answered (20 polls a second each).
          const answers = await Promise.all(
            Array.from({ length: CALLS }, () => gw.call('h__endless_task', {}, 10_000)),
          );
          for (const answer of answers) {
            ctx.tries++;
            ctx.check(
              answer?.result?.isError === true &&
                /exceeded its maximum total timeout of 1500 ms$/.test(textOf(answer) ?? ''),
              () => `expected an isError result at maxCallMs, got ${shown(answer)}`,
            );
          }
        });
        const counts = JSON.parse(textOf(await gw.call('h__tasks')) ?? '{}');
        ctx.check(counts.cancels === CALLS, () => `${counts.cancels} of ${CALLS} tasks were cancelled`);
        ctx.note(`the upstream was polled ${counts.gets} times for ${CALLS} calls of 1.5 s`);
      } catch (error) {
        ctx.fail(`the calls were not answered: ${error.message}`);
      } finally {
        await gw.close();
      }
    },
  },
  {
    name: 'floods',
    title:
      'during calls: 10,000 list_changed, 3,000 elicitations at once, 100,000 cancels of ids never sent, 30,000 progress, a call never answered',
    target: false,
    budgetMs: 90_000,
    // 30,000 progress notifications relayed in one burst: the gateway relays each (100,000 held a caller
    // beside them 300–650 ms here, mostly collecting garbage); the usual +100 ms bound cannot hold for that.
    latencyBoundMs: 600,
    async run(ctx) {
      const gw = await gateway({
        h: { command: process.execPath, args: [HOSTILE], stderr: 'ignore', timeoutMs: 2_000 },
      });
      const expect = async (name, args, check) => {
        ctx.tries++;
        const answer = await gw.call(name, args);
        const problem = check(answer);
        if (problem) ctx.fail(`${name} ${JSON.stringify(args)}: ${problem}: ${shown(answer)}`);
        return answer;
      };
      const is = (text) => (answer) => (textOf(answer) === text ? undefined : `expected "${text}"`);
      try {
        await beside(ctx, gw, async () => {
          await expect('h__list_changed', { n: 10_000 }, is('after the list_changed'));
          // Coalesced: the list fetched again once or twice, not once a notification.
          await expect('h__lists', {}, (answer) =>
            Number(textOf(answer)) <= 4 ? undefined : 'the tools were listed again once a notification',
          );
          await expect('h__ask', { n: 3_000 }, (answer) => {
            const { accepted, refused } = JSON.parse(textOf(answer) ?? '{}');
            return accepted + refused === 3_000 && accepted >= 1 ? undefined : 'not every question answered';
          });
          await expect('h__cancels', { n: 100_000 }, is('after the cancels'));
          await expect('h__progress', { n: 30_000 }, is('after the progress'));
          await expect('h__silent', {}, (answer) =>
            answer?.result?.isError === true && /timed out after 2\d\d\d ms/.test(textOf(answer) ?? '')
              ? undefined
              : 'expected an isError result saying it timed out',
          );
        });
        const relayed = gw.peer.messages.filter((m) => m.method === 'elicitation/create').length;
        ctx.note(
          `the host was asked ${relayed} of the 3,000 questions (the rest refused by the in-flight cap)`,
        );
      } finally {
        await gw.close();
      }
    },
  },
];
