/** Small statistics shared by the estimators. Standard deviations use Bessel's correction (n - 1). */

export const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((sum, x) => sum + x, 0) / values.length;

/** Sample standard deviation; 0 for fewer than two values. */
export const std = (values: readonly number[]): number => {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, x) => sum + (x - m) ** 2, 0) / (values.length - 1));
};

export const allEqual = (values: readonly number[]): boolean => values.every((x) => x === values[0]);

/** (x - mean) / (std + eps); all zeros when the values carry no spread (a constant or a single value). */
export const whiten = (values: readonly number[], eps: number): number[] => {
  if (allEqual(values)) return values.map(() => 0);
  const m = mean(values);
  const s = std(values);
  return values.map((x) => (x - m) / (s + eps));
};
