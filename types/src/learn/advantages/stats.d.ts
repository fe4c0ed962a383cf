/** Small statistics shared by the estimators. Standard deviations use Bessel's correction (n - 1). */
export declare const mean: (values: readonly number[]) => number;
/** Sample standard deviation; 0 for fewer than two values. */
export declare const std: (values: readonly number[]) => number;
export declare const allEqual: (values: readonly number[]) => boolean;
/** (x - mean) / (std + eps); all zeros when the values carry no spread (a constant or a single value). */
export declare const whiten: (values: readonly number[], eps: number) => number[];
