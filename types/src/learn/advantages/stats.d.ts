/** Small statistics shared by the estimators. Standard deviations use Bessel's correction (n - 1). */
/**
 * The mean; where the sum itself overflows (returns past 1e307), each value is divided first. Either way a
 * finite mean of finite values: the plain sum, bit for bit, wherever it fits.
 */
export declare const mean: (values: readonly number[]) => number;
/**
 * Sample standard deviation; 0 for fewer than two values. Where the squared deviations overflow (a spread
 * past 1e154, which made the std Infinity and every advantage 0, silently), they are taken relative to the
 * largest deviation; the plain sum, bit for bit, wherever it fits.
 */
export declare const std: (values: readonly number[]) => number;
export declare const allEqual: (values: readonly number[]) => boolean;
/** (x - mean) / (std + eps); all zeros when the values carry no spread (a constant or a single value). */
export declare const whiten: (values: readonly number[], eps: number) => number[];
