// Loads the packages the CLI and scripts import most, before tsx's loader is registered. tsx's hooks run on their
// own thread and cost a round trip for every module loaded after register(); effect's Schema alone is about 140
// ES modules, so loading these first shortens every command's start-up (figure 4 of `npm run bench` measures
// it). The modules are cached by URL, so the TypeScript sources get these same instances.
await Promise.all(
  ["effect/Schema", "effect/Data", "effect/Result", "rxjs", "xstate", "@tensorflow/tfjs-core"].map(
    (name) => import(name),
  ),
);
