import { assign, setup } from "xstate";
import * as r1 from "../../src/index.ts";

const CITIES = ["oslo", "rome", "cairo", "lima", "quito"]; // the world: each day deals them five temperatures anew
const temperature = (city: string, day: number) =>
  CITIES.includes(city) ? r1.Rng.fromSeed(`day ${day}`).shuffle([4, 14, 18, 21, 30])[CITIES.indexOf(city)]! : null;
// A tool returns raw outcomes (a temperature, or null); the machine decides what they mean.
const weather = r1.defineTool({
  name: "weather",
  description: "Current temperature of a city, in degrees.",
  parameters: r1.Schema.Struct({ city: r1.Schema.String, day: r1.Schema.optional(r1.Schema.Number) }),
  execute: ({ city, day = 0 }) => temperature(city, day), // a model names the city; the machine adds the day
});
const tools = { weather };
export type Task = { a: string; b: string; day: number }; // the day is hidden: the prompt names the cities only
type Context = { task: Task; turns: number; seen: string[]; city: string };
const warmer = (t: Task) => ((temperature(t.a, t.day) ?? 0) > (temperature(t.b, t.day) ?? 0) ? t.a : t.b);
const answer = (text: string) => r1.answerOf(text, tools);
const city = (text: string) => r1.callOf<{ city: string }>(text, tools, "weather")?.city;
const correct = (a: { context: Context; event: r1.AgentActEvent }) =>
  answer(a.event.text) === warmer(a.context.task) ? 1 : 0;
// Process reward: 0.1 the first time the agent asks about a city of the question, never again.
const fresh = ({ context: { task, seen, city } }: { context: Context }) =>
  [task.a, task.b].includes(city) && !seen.includes(city) ? 0.1 : 0;
const machine = setup({
  types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
  actors: r1.toolActors(tools),
}).createMachine({
  context: ({ input }) => ({ task: input.task, turns: 0, seen: [], city: "" }),
  entry: r1.observe(({ context }) => `which is warmer : ${context.task.a} or ${context.task.b} ?`),
  initial: "waiting",
  states: {
    waiting: {
      entry: assign({ turns: ({ context }) => context.turns + 1 }),
      on: {
        "agent.act": [
          {
            guard: ({ event }) => answer(event.text) !== undefined,
            target: "done",
            actions: [r1.reward("outcome", correct, "answer"), r1.end("answered", (a) => ({ success: correct(a) }))],
          },
          {
            guard: ({ context }) => context.turns > 4,
            target: "done", // the turn limit pays outcome 0, as a wrong answer does (not its process rewards alone)
            actions: [r1.reward("outcome", 0, "turn limit"), r1.end("turn-limit", { success: 0 })],
          },
          {
            guard: ({ event }) => city(event.text) !== undefined,
            target: "asking",
            actions: assign({ city: ({ event }) => city(event.text)! }),
          },
          {
            target: "waiting",
            reenter: true,
            actions: [r1.reward("process", -0.1, "malformed"), r1.observe("error : use <weather>city</weather>")],
          },
        ],
      },
    },
    asking: {
      invoke: {
        src: "weather",
        input: ({ context }: { context: Context }) => ({ city: context.city, day: context.task.day }),
        onDone: {
          target: "waiting",
          actions: [
            r1.reward("process", fresh, "asked about a city of the question"),
            assign({ seen: ({ context }) => [...context.seen, context.city] }),
            r1.observe(({ context, event }) =>
              event.output.ok ? `${context.city} : ${event.output.content}` : `error : ${event.output.error.message}`,
            ),
          ],
        },
      },
    },
    done: { type: "final" },
  },
});
// The calls still worth making, one per city of the question not asked about yet (legalActions' gate, the expert's plan).
const asks = ({ task: { a, b }, history }: r1.LegalView<Task>) =>
  [a, b].filter((c) => !history.some((turn) => city(turn.text) === c)).map((c) => r1.formatCall(weather, { city: c }));
// Every word of the prompts, observations and actions (`<answer>` is <, answer, >); others cost a token per byte.
const tokenizer = r1.WordTokenizer.fromCorpus([...CITIES, "which is warmer : or ? weather answer error use city"]);
// A scripted expert, (request, rng) => action (rng: a seeded Rng): asks both cities, then answers.
const expert = () =>
  r1.scriptedPolicy<Task>("weather-expert", tokenizer, (req) => asks(req)[0] ?? r1.formatAnswer(warmer(req.task)));
export default r1.defineEnv({
  id: "weather",
  version: "2",
  description: "Which of two cities is warmer? Ask a weather tool, then answer.",
  machine,
  tools,
  tokenizer,
  task: (seed): Task => {
    const rng = r1.Rng.fromSeed(seed);
    const [a, b] = rng.shuffle(CITIES);
    return { a: a!, b: b!, day: rng.int(1, 365) };
  },
  policies: { expert },
  model: { copy: true }, // a learned policy's copy head: its actions copy a city from the question
  // Constrained decoding's gate: ask about each city of the question once, then answer with one of them.
  legalActions: (view) => (asks(view).length ? asks(view) : [view.task.a, view.task.b].map(r1.formatAnswer)),
});
