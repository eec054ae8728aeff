// Shared by the WebAssembly modules' literal searches (scan.ts's pair keys, shapes.ts's tokens):
// "Teddy" nibble tables over three bytes in a row, 16 places at a time.

/**
 * The bucket bits of the 16 places q .. q + 15: for each, the buckets (a bit each, of 8) whose
 * nibble tables admit the three bytes starting there. L0/H0, L1/H1, L2/H2: which buckets a low /
 * high nibble may be at the first, second and third byte (loaded once by the caller, outside its
 * loop). Reads q .. q + 17.
 */
@inline export function nibbleBuckets(q: usize, L0: v128, H0: v128, L1: v128, H1: v128, L2: v128, H2: v128): v128 {
  const NIB = i8x16.splat(0x0f);
  const x0 = v128.load(q);
  const x1 = v128.load(q, 1);
  const x2 = v128.load(q, 2);
  return v128.and(
    v128.and(
      v128.and(i8x16.swizzle(L0, v128.and(x0, NIB)), i8x16.swizzle(H0, i8x16.shr_u(x0, 4))),
      v128.and(i8x16.swizzle(L1, v128.and(x1, NIB)), i8x16.swizzle(H1, i8x16.shr_u(x1, 4))),
    ),
    v128.and(i8x16.swizzle(L2, v128.and(x2, NIB)), i8x16.swizzle(H2, i8x16.shr_u(x2, 4))),
  );
}
