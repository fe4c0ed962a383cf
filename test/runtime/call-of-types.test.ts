import { expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import * as r1 from "../../src/index.ts";

// callOf types the arguments from the tool named (its parameters' Encoded type, the JSON written); before, they were Record<string, Json>
// unless declared by hand (a declaration nothing checked against the tool). The repository's typecheck compiles
// this file.
const refund = r1.defineTool({
  name: "refund",
  description: "Refund an amount of an order.",
  parameters: r1.Schema.Struct({ orderId: r1.Schema.String, amount: r1.Schema.Number }),
  execute: ({ amount }) => amount,
});
const lookup = r1.defineTool({
  name: "lookup",
  description: "Look an order up.",
  parameters: r1.Schema.Struct({ id: r1.Schema.String }),
  execute: ({ id }) => id,
});
const tools = { refund, lookup };

it("callOf's arguments have the tool's types; a declared type and a record of tools work as before", () => {
  const call = r1.callOf('<refund>{"orderId":"o1","amount":5}</refund>', tools, "refund");
  const amount: number | undefined = call?.amount;
  const orderId: string | undefined = call?.orderId;
  expect([orderId, amount]).toEqual(["o1", 5]);
  const id: string | undefined = r1.callOf("<lookup>o2</lookup>", tools, "lookup")?.id;
  expect(id).toBe("o2");
  expect(r1.callOf("<lookup>o2</lookup>", tools, "refund")).toBeUndefined();
  // Declared by hand, as before.
  expect(r1.callOf<{ id: string }>("<lookup>o3</lookup>", tools, "lookup")?.id).toBe("o3");
  // A record of any tools, and a name known only at run time: JSON fields, as before.
  const any: Readonly<Record<string, r1.Tool>> = tools;
  const name: string = "lookup";
  const json: r1.Json | undefined = r1.callOf("<lookup>o4</lookup>", any, "lookup")?.id;
  expect([json, r1.callOf("<lookup>o4</lookup>", tools, name)?.id]).toEqual(["o4", "o4"]);
  // A name that is none of the tools is a compile error where the tools' names are known, and still throws
  // when called (a guard that could never match): from JavaScript, a record of any tools, arguments declared by hand.
  // @ts-expect-error no tool named "lokup" among { refund, lookup }
  expect(() => r1.callOf("<lookup>o2</lookup>", tools, "lokup")).toThrow(/callOf: no tool named "lokup"/);
  expect(() => r1.callOf("<lookup>o2</lookup>", any, "lokup")).toThrow(/callOf: no tool named "lokup"/);
  expect(() => r1.callOf<{ id: string }>("<lookup>o2</lookup>", tools, "lokup")).toThrow(/no tool named "lokup"/);
  // The arguments as written: a field its parameters decode (NumberFromString) is the action's string, typed so.
  const counted = r1.defineTool({
    name: "counted",
    description: "A count written as text.",
    parameters: r1.Schema.Struct({ n: r1.Schema.NumberFromString }),
    execute: ({ n }) => n + 1,
  });
  const written: string | undefined = r1.callOf("<counted>5</counted>", { counted }, "counted")?.n;
  expect(written).toBe("5");
  // A tool typed only as Tool: JSON fields, as before.
  const general: r1.Tool = lookup;
  const field: r1.Json | undefined = r1.callOf("<lookup>o5</lookup>", { lookup: general }, "lookup")?.["id"];
  expect(field).toBe("o5");
  // @ts-expect-error the tool's amount is a number
  const wrong: string | undefined = call?.amount;
  expect(wrong).toBe(5);
});

it("an environment's own tools (env.tools of defineEnv) type callOf's arguments and names as the record they were made from", () => {
  // env.tools is Readonly<Record<string, Tool>> & { weather }: its keyof was string, so callOf gave JSON fields
  // (a test's model reading `callOf(text, env.tools, "weather")?.city` did not compile as a string) and took any name.
  const city: string | undefined = r1.callOf("<weather>oslo</weather>", weather.tools, "weather")?.city;
  expect(city).toBe("oslo");
  // @ts-expect-error no tool named "wether" among the environment's tools
  expect(() => r1.callOf("<weather>oslo</weather>", weather.tools, "wether")).toThrow(/no tool named "wether"/);
  // Declared by hand, and a name known only at run time, as for any record.
  expect(r1.callOf<{ city: string }>("<weather>rome</weather>", weather.tools, "weather")?.city).toBe("rome");
  const name: string = "weather";
  const json: r1.Json | undefined = r1.callOf("<weather>lima</weather>", weather.tools, name)?.["city"];
  expect(json).toBe("lima");
});
