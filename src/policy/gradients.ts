/**
 * Gradients for the kernels the GPT and the losses use.
 *
 * The Node build of tfjs-core registers no gradients (the full `@tensorflow/tfjs` bundle does), and its
 * ESM files cannot be imported by Node (extensionless specifiers). So we register our own, only for
 * kernels that have none yet: with the full bundle installed, its gradients stay in charge.
 *
 * Each gradient is the textbook derivative; binary ops sum the incoming gradient over broadcast axes.
 * Only kernels that exist on wasm are used inside them.
 */
import * as tf from "@tensorflow/tfjs-core";

/**
 * Sums `dy` down to `shape`, undoing broadcasting. A bias gradient (dy [n, k] summed to [k]) is done as
 * ones[1, n] x dy: wasm's Sum over a non-innermost axis transposes first and is slow.
 *
 * Only for 2-D dy: wasm caches its matMul operator by the id of b's buffer, not by b's shape, so one
 * buffer must never be b under two different 2-D shapes (a reshaped view of a 3-D dy would be).
 */
const unbroadcast = (dy: tf.Tensor, shape: readonly number[]): tf.Tensor => {
  if (tf.util.arraysEqual(dy.shape, shape as number[])) return dy;
  const axes = tf.backend_util.getReductionAxes(shape as number[], dy.shape);
  if (dy.rank === 2 && axes.length === 1 && axes[0] === 0) {
    return tf.reshape(tf.matMul(tf.ones([1, dy.shape[0]]), dy), shape as number[]);
  }
  const summed = axes.length > 0 ? tf.sum(dy, axes) : dy;
  return tf.reshape(summed, shape as number[]);
};

type BinaryGrad = (dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor) => tf.Tensor;

/** A broadcasting binary op, from the gradients with respect to a and to b (each computed only if needed). */
const binary = (kernelName: string, gradA: BinaryGrad, gradB: BinaryGrad): tf.GradConfig => ({
  kernelName,
  inputsToSave: ["a", "b"],
  gradFunc: (dy, saved) => {
    const [a, b] = saved;
    const d = dy as tf.Tensor;
    return { a: () => unbroadcast(gradA(d, a, b), a.shape), b: () => unbroadcast(gradB(d, a, b), b.shape) };
  },
});

const unary = (kernelName: string, grad: (dy: tf.Tensor, x: tf.Tensor) => tf.Tensor): tf.GradConfig => ({
  kernelName,
  inputsToSave: ["x"],
  gradFunc: (dy, saved) => ({ x: () => grad(dy as tf.Tensor, saved[0]) }),
});

/** Gradients computed from the op's output y (saved instead of the input). */
const fromOutput = (kernelName: string, input: string, grad: (dy: tf.Tensor, y: tf.Tensor) => tf.Tensor) =>
  ({
    kernelName,
    outputsToSave: [true],
    gradFunc: (dy, saved) => ({ [input]: () => grad(dy as tf.Tensor, saved[0]) }),
  }) satisfies tf.GradConfig;

const asFloat = (x: tf.Tensor): tf.Tensor => tf.cast(x, "float32");

/** dy of a reduction, broadcast back to the input's shape (by a multiply: wasm's Tile is slow). */
const expandReduced = (dy: tf.Tensor, x: tf.Tensor, axis: unknown, scale = false): tf.Tensor => {
  const axes = tf.util.parseAxisParam(axis as number | number[], x.shape);
  const kept = x.shape.map((size, i) => (axes.includes(i) ? 1 : size));
  const count = axes.reduce((n, i) => n * x.shape[i], 1);
  return tf.mul(tf.reshape(dy, kept), tf.fill(x.shape, scale ? 1 / count : 1));
};

const matMulGrad: tf.GradConfig = {
  kernelName: tf.BatchMatMul,
  inputsToSave: ["a", "b"],
  gradFunc: (dy, saved, attrs) => {
    const [a, b] = saved;
    const d = dy as tf.Tensor;
    const { transposeA, transposeB } = attrs as { transposeA: boolean; transposeB: boolean };
    const [da, db] = !transposeA
      ? !transposeB
        ? [() => tf.matMul(d, b, false, true), () => tf.matMul(a, d, true, false)]
        : [() => tf.matMul(d, b), () => tf.matMul(d, a, true, false)]
      : !transposeB
        ? [() => tf.matMul(b, d, false, true), () => tf.matMul(a, d)]
        : [() => tf.matMul(b, d, true, true), () => tf.matMul(d, a, true, true)];
    return { a: () => unbroadcast(da(), a.shape), b: () => unbroadcast(db(), b.shape) };
  },
};

const GRADIENTS: readonly tf.GradConfig[] = [
  binary(
    tf.Add,
    (dy) => dy,
    (dy) => dy,
  ),
  binary(
    tf.Sub,
    (dy) => dy,
    (dy) => tf.neg(dy),
  ),
  binary(
    tf.Multiply,
    (dy, _a, b) => tf.mul(dy, b),
    (dy, a) => tf.mul(dy, a),
  ),
  binary(
    tf.RealDiv,
    (dy, _a, b) => tf.div(dy, b),
    (dy, a, b) => tf.neg(tf.div(tf.mul(dy, a), tf.mul(b, b))),
  ),
  binary(
    tf.Maximum,
    (dy, a, b) => tf.mul(dy, asFloat(tf.greaterEqual(a, b))),
    (dy, a, b) => tf.mul(dy, asFloat(tf.less(a, b))),
  ),
  binary(
    tf.Minimum,
    (dy, a, b) => tf.mul(dy, asFloat(tf.lessEqual(a, b))),
    (dy, a, b) => tf.mul(dy, asFloat(tf.greater(a, b))),
  ),
  binary(
    tf.SquaredDifference,
    (dy, a, b) => tf.mul(dy, tf.mul(tf.sub(a, b), 2)),
    (dy, a, b) => tf.mul(dy, tf.mul(tf.sub(b, a), 2)),
  ),
  matMulGrad,
  // Comparisons are flat: zero gradient, so a mask computed from a differentiated tensor does not break
  // backpropagation (tfjs-core has none for them).
  ...[tf.Greater, tf.GreaterEqual, tf.Less, tf.LessEqual, tf.Equal, tf.NotEqual].map((kernelName) =>
    binary(
      kernelName,
      (_dy, a) => tf.zerosLike(a),
      (_dy, _a, b) => tf.zerosLike(b),
    ),
  ),
  unary(tf.Neg, (dy) => tf.neg(dy)),
  unary(tf.Log, (dy, x) => tf.div(dy, x)),
  unary(tf.Relu, (dy, x) => tf.mul(dy, asFloat(tf.greater(x, 0)))),
  unary(tf.Rsqrt, (dy, x) => {
    const y = tf.rsqrt(x);
    return tf.mul(dy, tf.mul(tf.mul(tf.mul(y, y), y), -0.5));
  }),
  unary(tf.Sqrt, (dy, x) => tf.div(dy, tf.mul(tf.sqrt(x), 2))),
  unary(tf.Square, (dy, x) => tf.mul(dy, tf.mul(x, 2))),
  unary(tf.Abs, (dy, x) => tf.mul(dy, tf.sign(x))),
  unary(tf.Cast, (dy) => tf.clone(dy)),
  unary(tf.ZerosLike, (dy) => tf.zerosLike(dy)),
  unary(tf.OnesLike, (dy) => tf.zerosLike(dy)),
  unary(tf.Identity, (dy) => tf.clone(dy)),
  {
    kernelName: tf.ExpandDims,
    inputsToSave: ["input"],
    gradFunc: (dy, saved) => ({ input: () => tf.reshape(dy as tf.Tensor, saved[0].shape) }),
  },
  unary(tf.Reshape, (dy, x) => tf.reshape(dy, x.shape)),
  fromOutput(tf.Exp, "x", (dy, y) => tf.mul(dy, y)),
  fromOutput(tf.Tanh, "x", (dy, y) => tf.mul(dy, tf.sub(1, tf.mul(y, y)))),
  fromOutput(tf.Sigmoid, "x", (dy, y) => tf.mul(dy, tf.mul(y, tf.sub(1, y)))),
  {
    kernelName: tf.Softmax,
    outputsToSave: [true],
    gradFunc: (dy, saved, attrs) => {
      const [y] = saved;
      const d = dy as tf.Tensor;
      const dim = (attrs as { dim: number }).dim;
      return { logits: () => tf.mul(y, tf.sub(d, tf.sum(tf.mul(d, y), dim, true))) };
    },
  },
  {
    kernelName: tf.Sum,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => ({ x: () => expandReduced(dy as tf.Tensor, saved[0], attrs.axis) }),
  },
  {
    kernelName: tf.Mean,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => ({ x: () => expandReduced(dy as tf.Tensor, saved[0], attrs.axis, true) }),
  },
  {
    kernelName: tf.Transpose,
    gradFunc: (dy, _saved, attrs) => {
      const perm = attrs.perm as number[];
      const inverse = perm.map((_, i) => perm.indexOf(i));
      return { x: () => tf.transpose(dy as tf.Tensor, inverse) };
    },
  },
  {
    kernelName: tf.Slice,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => {
      const [x] = saved;
      const [begin, size] = tf.slice_util.parseSliceParams(x, attrs.begin as number[], attrs.size as number[]);
      const paddings = x.shape.map((dim, i): [number, number] => [begin[i], dim - begin[i] - size[i]]);
      return { x: () => tf.pad(dy as tf.Tensor, paddings) };
    },
  },
  {
    kernelName: tf.Concat,
    saveAllInputs: true,
    gradFunc: (dy, saved, attrs) => {
      const axis = tf.util.parseAxisParam(attrs.axis as number, saved[0].shape)[0];
      const sizes = saved.map((t) => t.shape[axis]);
      const parts = tf.split(dy as tf.Tensor, sizes, axis);
      return Object.fromEntries(parts.map((part, i) => [String(i), () => part]));
    },
  },
  {
    kernelName: tf.SplitV,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => {
      const [x] = saved;
      const axis = tf.util.parseAxisParam(attrs.axis as number, x.shape)[0];
      const split = attrs.numOrSizeSplits as number | number[];
      const sizes = Array.isArray(split) ? split : new Array<number>(split).fill(x.shape[axis] / split);
      const parts = (dy as (tf.Tensor | null)[]).map(
        (part, i) => part ?? tf.zeros(x.shape.map((dim, j) => (j === axis ? sizes[i] : dim))),
      );
      return { x: () => tf.concat(parts, axis) };
    },
  },
  {
    kernelName: tf.ClipByValue,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => {
      const [x] = saved;
      const { clipValueMin, clipValueMax } = attrs as { clipValueMin: number; clipValueMax: number };
      const inside = tf.logicalAnd(tf.greaterEqual(x, clipValueMin), tf.lessEqual(x, clipValueMax));
      return { x: () => tf.where(inside, dy as tf.Tensor, tf.zerosLike(dy as tf.Tensor)) };
    },
  },
  {
    kernelName: tf.Select,
    inputsToSave: ["condition"],
    gradFunc: (dy, saved) => {
      const [condition] = saved;
      const d = dy as tf.Tensor;
      return {
        condition: () => tf.zerosLike(asFloat(condition)),
        t: () => tf.where(condition, d, tf.zerosLike(d)),
        e: () => tf.where(condition, tf.zerosLike(d), d),
      };
    },
  },
  {
    // Embedding lookups: the rows gathered are summed back into the table. Axis 0 only.
    kernelName: tf.GatherV2,
    inputsToSave: ["x", "indices"],
    gradFunc: (dy, saved, attrs) => {
      const [x, indices] = saved;
      const { axis, batchDims } = attrs as { axis: number; batchDims: number };
      if (tf.util.parseAxisParam(axis, x.shape)[0] !== 0 || batchDims !== 0) {
        throw new Error("gather's gradient is implemented for axis 0 without batch dimensions only");
      }
      const rows = tf.reshape(dy as tf.Tensor, [indices.size, ...x.shape.slice(1)]);
      return {
        x: () => tf.unsortedSegmentSum(rows, tf.reshape(indices, [-1]) as tf.Tensor1D, x.shape[0]),
        indices: () => tf.zerosLike(asFloat(indices)),
      };
    },
  },
];

let registered = false;

/** Registers the gradients above for every kernel that has none yet. Idempotent. */
export const registerGradients = (): void => {
  if (registered) return;
  registered = true;
  for (const config of GRADIENTS) {
    if (tf.getGradient(config.kernelName) === undefined) tf.registerGradient(config);
  }
};
