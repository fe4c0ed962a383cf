/** Small statistics shared by the estimators. Standard deviations use Bessel's correction (n - 1). */

/**
 * The mean; where the sum itself overflows (returns past 1e307), each value is divided first. Either way a
 * finite mean of finite values: the plain sum, bit for bit, wherever it fits.
 */
export const mean = (values: readonly number[]): number => {
  if (values.length === 0) return 0;
  const sum = values.reduce((total, x) => total + x, 0);
  return Number.isFinite(sum) ? sum / values.length : values.reduce((total, x) => total + x / values.length, 0);
};

/**
 * Sample standard deviation; 0 for fewer than two values. Where the squared deviations overflow (a spread
 * past 1e154, which made the std Infinity and every advantage 0, silently), they are taken relative to the
 * largest deviation; the plain sum, bit for bit, wherever it fits.
 */
export const std = (values: readonly number[]): number => {
  if (values.length < 2) return 0;
  const m = mean(values);
  const squares = values.reduce((sum, x) => sum + (x - m) ** 2, 0);
  if (Number.isFinite(squares)) return Math.sqrt(squares / (values.length - 1));
  const scale = values.reduce((largest, x) => Math.max(largest, Math.abs(x - m)), 0);
  return scale * Math.sqrt(values.reduce((sum, x) => sum + ((x - m) / scale) ** 2, 0) / (values.length - 1));
};

export const allEqual = (values: readonly number[]): boolean => values.every((x) => x === values[0]);

/** (x - mean) / (std + eps); all zeros when the values carry no spread (a constant or a single value). */
export const whiten = (values: readonly number[], eps: number): number[] => {
  if (allEqual(values)) return values.map(() => 0);
  const m = mean(values);
  const s = std(values);
  return values.map((x) => (x - m) / (s + eps));
};
