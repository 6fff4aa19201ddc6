;; Dot products of a block of query rows against a block of member rows, four lanes at a time
;; (wasm SIMD f32x4), for the inverted file of the semantic relation (Eq. 6) and its clustering.
;;
;; block(queries, nq, members, nm, rowBytes, out):
;;   queries  byte offset of nq i32 byte offsets, one per query row (rows may lie anywhere);
;;            nq must be even (repeat the last offset to pad)
;;   members  byte offset of nm consecutive rows; nm a multiple of 4 (pad with zero rows)
;;   rowBytes bytes per row, a multiple of 16 (rows padded with zeros to 4 floats)
;;   out      nq x nm f32 scores, row-major: out[q * nm + m] = <query q, member m>
;; blockFiltered(queries, nq, members, nm, rowBytes, queryFloors, memberFloors, out) -> count:
;;   the same products, but only the candidates are written (see below), so that JS touches
;;   the few products that can enter a row's k nearest, not all of them.
;; Rows of two queries by four members share every load (a 2 x 4 tile of eight f32x4
;; accumulators, as the JS kernel's tiles in semantic.ts). The sums are f32 and in lane order,
;; so they differ from the JS sum by rounding: callers use them to filter, not as weights.
;;
;; Assembled by scripts/build-dot-block.mjs (wabt) into dot-block-wasm.ts; edit this file, then
;; run `node scripts/build-dot-block.mjs`.
(module
  (memory (export "memory") 1)
  (func $hsum4 (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (local $u v128) (local $v v128)
    ;; u = (a0+a2, a1+a3, b0+b2, b1+b3), v likewise for c, d; then pairwise again.
    (local.set $u
      (f32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $b))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b))))
    (local.set $v
      (f32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $c) (local.get $d))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $c) (local.get $d))))
    (f32x4.add
      (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $u) (local.get $v))
      (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $u) (local.get $v))))

  (func (export "block")
    (param $queries i32) (param $nq i32) (param $members i32) (param $nm i32)
    (param $rowBytes i32) (param $out i32)
    (local $q i32) (local $qa i32) (local $qb i32) (local $m i32)
    (local $m0 i32) (local $m1 i32) (local $m2 i32) (local $m3 i32)
    (local $off i32) (local $outA i32) (local $outB i32)
    (local $x v128) (local $y v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (if (i32.eqz (local.get $nq)) (then (return)))
    (if (i32.eqz (local.get $nm)) (then (return)))
    (local.set $q (i32.const 0))
    (loop $queryPairs
      (local.set $qa (i32.load (i32.add (local.get $queries) (i32.shl (local.get $q) (i32.const 2)))))
      (local.set $qb
        (i32.load (i32.add (local.get $queries) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))
      (local.set $outA (i32.add (local.get $out) (i32.shl (i32.mul (local.get $q) (local.get $nm)) (i32.const 2))))
      (local.set $outB (i32.add (local.get $outA) (i32.shl (local.get $nm) (i32.const 2))))
      (local.set $m (i32.const 0))
      (local.set $m0 (local.get $members))
      (loop $memberQuads
        (local.set $m1 (i32.add (local.get $m0) (local.get $rowBytes)))
        (local.set $m2 (i32.add (local.get $m1) (local.get $rowBytes)))
        (local.set $m3 (i32.add (local.get $m2) (local.get $rowBytes)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $t0 (v128.const i32x4 0 0 0 0))
        (local.set $t1 (v128.const i32x4 0 0 0 0))
        (local.set $t2 (v128.const i32x4 0 0 0 0))
        (local.set $t3 (v128.const i32x4 0 0 0 0))
        (local.set $off (i32.const 0))
        (loop $dims
          (local.set $x (v128.load (i32.add (local.get $qa) (local.get $off))))
          (local.set $y (v128.load (i32.add (local.get $qb) (local.get $off))))
          (local.set $a0 (v128.load (i32.add (local.get $m0) (local.get $off))))
          (local.set $a1 (v128.load (i32.add (local.get $m1) (local.get $off))))
          (local.set $a2 (v128.load (i32.add (local.get $m2) (local.get $off))))
          (local.set $a3 (v128.load (i32.add (local.get $m3) (local.get $off))))
          (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (local.get $x) (local.get $a0))))
          (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (local.get $x) (local.get $a1))))
          (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (local.get $x) (local.get $a2))))
          (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (local.get $x) (local.get $a3))))
          (local.set $t0 (f32x4.add (local.get $t0) (f32x4.mul (local.get $y) (local.get $a0))))
          (local.set $t1 (f32x4.add (local.get $t1) (f32x4.mul (local.get $y) (local.get $a1))))
          (local.set $t2 (f32x4.add (local.get $t2) (f32x4.mul (local.get $y) (local.get $a2))))
          (local.set $t3 (f32x4.add (local.get $t3) (f32x4.mul (local.get $y) (local.get $a3))))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (br_if $dims (i32.lt_u (local.get $off) (local.get $rowBytes))))
        (v128.store (local.get $outA)
          (call $hsum4 (local.get $s0) (local.get $s1) (local.get $s2) (local.get $s3)))
        (v128.store (local.get $outB)
          (call $hsum4 (local.get $t0) (local.get $t1) (local.get $t2) (local.get $t3)))
        (local.set $outA (i32.add (local.get $outA) (i32.const 16)))
        (local.set $outB (i32.add (local.get $outB) (i32.const 16)))
        (local.set $m0 (i32.add (local.get $m3) (local.get $rowBytes)))
        (local.set $m (i32.add (local.get $m) (i32.const 4)))
        (br_if $memberQuads (i32.lt_u (local.get $m) (local.get $nm))))
      (local.set $q (i32.add (local.get $q) (i32.const 2)))
      (br_if $queryPairs (i32.lt_u (local.get $q) (local.get $nq)))))

  ;; Append (q << 16 | m + lane) to out for each lane whose score is positive and reaches the
  ;; query's floor or that member's floor; returns the new count.
  (func $emit (param $r v128) (param $fq v128) (param $fm v128) (param $q i32) (param $m i32)
    (param $out i32) (param $count i32) (result i32)
    (local $bits i32) (local $lane i32)
    (local.set $bits
      (i32x4.bitmask
        (v128.and
          (f32x4.gt (local.get $r) (v128.const i32x4 0 0 0 0))
          (v128.or (f32x4.ge (local.get $r) (local.get $fq)) (f32x4.ge (local.get $r) (local.get $fm))))))
    (block $done
      (loop $lanes
        (br_if $done (i32.eqz (local.get $bits)))
        (local.set $lane (i32.ctz (local.get $bits)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2)))
          (i32.or (i32.shl (local.get $q) (i32.const 16)) (i32.add (local.get $m) (local.get $lane))))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
        (br $lanes)))
    (local.get $count))

  ;; As `block`, but instead of scores writes the candidates: (q << 16 | m) for every product
  ;; that is positive and at least queryFloors[q] or memberFloors[m] (f32 arrays); returns
  ;; their count. out must hold nq * nm entries.
  (func (export "blockFiltered")
    (param $queries i32) (param $nq i32) (param $members i32) (param $nm i32)
    (param $rowBytes i32) (param $queryFloors i32) (param $memberFloors i32)
    (param $out i32) (result i32)
    (local $q i32) (local $qa i32) (local $qb i32) (local $m i32)
    (local $m0 i32) (local $m1 i32) (local $m2 i32) (local $m3 i32)
    (local $off i32) (local $count i32) (local $fa v128) (local $fb v128) (local $fm v128)
    (local $x v128) (local $y v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (if (i32.eqz (local.get $nq)) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $nm)) (then (return (i32.const 0))))
    (local.set $q (i32.const 0))
    (loop $queryPairs
      (local.set $qa (i32.load (i32.add (local.get $queries) (i32.shl (local.get $q) (i32.const 2)))))
      (local.set $qb
        (i32.load (i32.add (local.get $queries) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))
      (local.set $fa (v128.load32_splat (i32.add (local.get $queryFloors) (i32.shl (local.get $q) (i32.const 2)))))
      (local.set $fb
        (v128.load32_splat (i32.add (local.get $queryFloors) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))
      (local.set $m (i32.const 0))
      (local.set $m0 (local.get $members))
      (loop $memberQuads
        (local.set $m1 (i32.add (local.get $m0) (local.get $rowBytes)))
        (local.set $m2 (i32.add (local.get $m1) (local.get $rowBytes)))
        (local.set $m3 (i32.add (local.get $m2) (local.get $rowBytes)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $t0 (v128.const i32x4 0 0 0 0))
        (local.set $t1 (v128.const i32x4 0 0 0 0))
        (local.set $t2 (v128.const i32x4 0 0 0 0))
        (local.set $t3 (v128.const i32x4 0 0 0 0))
        (local.set $off (i32.const 0))
        (loop $dims
          (local.set $x (v128.load (i32.add (local.get $qa) (local.get $off))))
          (local.set $y (v128.load (i32.add (local.get $qb) (local.get $off))))
          (local.set $a0 (v128.load (i32.add (local.get $m0) (local.get $off))))
          (local.set $a1 (v128.load (i32.add (local.get $m1) (local.get $off))))
          (local.set $a2 (v128.load (i32.add (local.get $m2) (local.get $off))))
          (local.set $a3 (v128.load (i32.add (local.get $m3) (local.get $off))))
          (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (local.get $x) (local.get $a0))))
          (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (local.get $x) (local.get $a1))))
          (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (local.get $x) (local.get $a2))))
          (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (local.get $x) (local.get $a3))))
          (local.set $t0 (f32x4.add (local.get $t0) (f32x4.mul (local.get $y) (local.get $a0))))
          (local.set $t1 (f32x4.add (local.get $t1) (f32x4.mul (local.get $y) (local.get $a1))))
          (local.set $t2 (f32x4.add (local.get $t2) (f32x4.mul (local.get $y) (local.get $a2))))
          (local.set $t3 (f32x4.add (local.get $t3) (f32x4.mul (local.get $y) (local.get $a3))))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (br_if $dims (i32.lt_u (local.get $off) (local.get $rowBytes))))
        (local.set $fm (v128.load (i32.add (local.get $memberFloors) (i32.shl (local.get $m) (i32.const 2)))))
        (local.set $count
          (call $emit (call $hsum4 (local.get $s0) (local.get $s1) (local.get $s2) (local.get $s3))
            (local.get $fa) (local.get $fm) (local.get $q) (local.get $m) (local.get $out) (local.get $count)))
        (local.set $count
          (call $emit (call $hsum4 (local.get $t0) (local.get $t1) (local.get $t2) (local.get $t3))
            (local.get $fb) (local.get $fm) (i32.add (local.get $q) (i32.const 1)) (local.get $m)
            (local.get $out) (local.get $count)))
        (local.set $m0 (i32.add (local.get $m3) (local.get $rowBytes)))
        (local.set $m (i32.add (local.get $m) (i32.const 4)))
        (br_if $memberQuads (i32.lt_u (local.get $m) (local.get $nm))))
      (local.set $q (i32.add (local.get $q) (i32.const 2)))
      (br_if $queryPairs (i32.lt_u (local.get $q) (local.get $nq))))
    (local.get $count))

  ;; blockFiltered16(queries, nq, members, nm, rowBytes, queryFloors, memberFloors, unit, out)
;;   -> count: `blockFiltered` on rows quantised to i16 (each row padded to a multiple of 8 i16,
;;   rowBytes a multiple of 16), eight products per i32x4.dot_i16x8_s instead of four f32
;;   multiply-adds, and half the bytes per row. The integer sums are exact (callers keep
;;   |row|_2 <= 32,767, so no partial sum overflows i32); each is converted to f32 and multiplied
;;   by `unit` (1 / scale^2) before the floors are tested, as in `blockFiltered`. Only a filter:
;;   the quantisation error is bounded by the caller's tolerance and every candidate is rescored
;;   from the f32 rows.
  (func $hsum4i (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (local $u v128) (local $v v128)
    (local.set $u
      (i32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $b))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b))))
    (local.set $v
      (i32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $c) (local.get $d))
        (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $c) (local.get $d))))
    (i32x4.add
      (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $u) (local.get $v))
      (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $u) (local.get $v))))

  (func (export "blockFiltered16")
    (param $queries i32) (param $nq i32) (param $members i32) (param $nm i32)
    (param $rowBytes i32) (param $queryFloors i32) (param $memberFloors i32)
    (param $unit f32) (param $out i32) (result i32)
    (local $q i32) (local $qa i32) (local $qb i32) (local $m i32)
    (local $m0 i32) (local $m1 i32) (local $m2 i32) (local $m3 i32)
    (local $off i32) (local $count i32) (local $fa v128) (local $fb v128) (local $fm v128)
    (local $scale v128)
    (local $x v128) (local $y v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (if (i32.eqz (local.get $nq)) (then (return (i32.const 0))))
    (if (i32.eqz (local.get $nm)) (then (return (i32.const 0))))
    (local.set $scale (f32x4.splat (local.get $unit)))
    (local.set $q (i32.const 0))
    (loop $queryPairs
      (local.set $qa (i32.load (i32.add (local.get $queries) (i32.shl (local.get $q) (i32.const 2)))))
      (local.set $qb
        (i32.load (i32.add (local.get $queries) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))
      (local.set $fa (v128.load32_splat (i32.add (local.get $queryFloors) (i32.shl (local.get $q) (i32.const 2)))))
      (local.set $fb
        (v128.load32_splat (i32.add (local.get $queryFloors) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))
      (local.set $m (i32.const 0))
      (local.set $m0 (local.get $members))
      (loop $memberQuads
        (local.set $m1 (i32.add (local.get $m0) (local.get $rowBytes)))
        (local.set $m2 (i32.add (local.get $m1) (local.get $rowBytes)))
        (local.set $m3 (i32.add (local.get $m2) (local.get $rowBytes)))
        (local.set $s0 (v128.const i32x4 0 0 0 0))
        (local.set $s1 (v128.const i32x4 0 0 0 0))
        (local.set $s2 (v128.const i32x4 0 0 0 0))
        (local.set $s3 (v128.const i32x4 0 0 0 0))
        (local.set $t0 (v128.const i32x4 0 0 0 0))
        (local.set $t1 (v128.const i32x4 0 0 0 0))
        (local.set $t2 (v128.const i32x4 0 0 0 0))
        (local.set $t3 (v128.const i32x4 0 0 0 0))
        (local.set $off (i32.const 0))
        (loop $dims
          (local.set $x (v128.load (i32.add (local.get $qa) (local.get $off))))
          (local.set $y (v128.load (i32.add (local.get $qb) (local.get $off))))
          (local.set $a0 (v128.load (i32.add (local.get $m0) (local.get $off))))
          (local.set $a1 (v128.load (i32.add (local.get $m1) (local.get $off))))
          (local.set $a2 (v128.load (i32.add (local.get $m2) (local.get $off))))
          (local.set $a3 (v128.load (i32.add (local.get $m3) (local.get $off))))
          (local.set $s0 (i32x4.add (local.get $s0) (i32x4.dot_i16x8_s (local.get $x) (local.get $a0))))
          (local.set $s1 (i32x4.add (local.get $s1) (i32x4.dot_i16x8_s (local.get $x) (local.get $a1))))
          (local.set $s2 (i32x4.add (local.get $s2) (i32x4.dot_i16x8_s (local.get $x) (local.get $a2))))
          (local.set $s3 (i32x4.add (local.get $s3) (i32x4.dot_i16x8_s (local.get $x) (local.get $a3))))
          (local.set $t0 (i32x4.add (local.get $t0) (i32x4.dot_i16x8_s (local.get $y) (local.get $a0))))
          (local.set $t1 (i32x4.add (local.get $t1) (i32x4.dot_i16x8_s (local.get $y) (local.get $a1))))
          (local.set $t2 (i32x4.add (local.get $t2) (i32x4.dot_i16x8_s (local.get $y) (local.get $a2))))
          (local.set $t3 (i32x4.add (local.get $t3) (i32x4.dot_i16x8_s (local.get $y) (local.get $a3))))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (br_if $dims (i32.lt_u (local.get $off) (local.get $rowBytes))))
        (local.set $fm (v128.load (i32.add (local.get $memberFloors) (i32.shl (local.get $m) (i32.const 2)))))
        (local.set $count
          (call $emit
            (f32x4.mul (local.get $scale) (f32x4.convert_i32x4_s
              (call $hsum4i (local.get $s0) (local.get $s1) (local.get $s2) (local.get $s3))))
            (local.get $fa) (local.get $fm) (local.get $q) (local.get $m) (local.get $out) (local.get $count)))
        (local.set $count
          (call $emit
            (f32x4.mul (local.get $scale) (f32x4.convert_i32x4_s
              (call $hsum4i (local.get $t0) (local.get $t1) (local.get $t2) (local.get $t3))))
            (local.get $fb) (local.get $fm) (i32.add (local.get $q) (i32.const 1)) (local.get $m)
            (local.get $out) (local.get $count)))
        (local.set $m0 (i32.add (local.get $m3) (local.get $rowBytes)))
        (local.set $m (i32.add (local.get $m) (i32.const 4)))
        (br_if $memberQuads (i32.lt_u (local.get $m) (local.get $nm))))
      (local.set $q (i32.add (local.get $q) (i32.const 2)))
      (br_if $queryPairs (i32.lt_u (local.get $q) (local.get $nq))))
    (local.get $count))

  ;; rescore(queries, members, rowBytes, candidates, count, dst): for each of blockFiltered's
  ;; `count` candidates (q << 16 | m) the exact dot product as f64, summed one dimension at a time
  ;; in order, as JS sums it (f32 products are exact in f64, the zero padding adds +0): the same
  ;; bits as semantic.ts's `dotOf`. Written as f64 at dst.
  (func (export "rescore")
    (param $queries i32) (param $members i32) (param $rowBytes i32) (param $candidates i32)
    (param $count i32) (param $dst i32)
    (local $e i32) (local $code i32) (local $qa i32) (local $mb i32) (local $off i32) (local $sum f64)
    (if (i32.eqz (local.get $count)) (then (return)))
    (loop $each
      (local.set $code (i32.load (i32.add (local.get $candidates) (i32.shl (local.get $e) (i32.const 2)))))
      (local.set $qa
        (i32.load (i32.add (local.get $queries) (i32.shl (i32.shr_u (local.get $code) (i32.const 16)) (i32.const 2)))))
      (local.set $mb
        (i32.add (local.get $members) (i32.mul (i32.and (local.get $code) (i32.const 0xffff)) (local.get $rowBytes))))
      (local.set $sum (f64.const 0))
      (local.set $off (i32.const 0))
      (loop $dims
        (local.set $sum
          (f64.add (local.get $sum)
            (f64.mul
              (f64.promote_f32 (f32.load (i32.add (local.get $qa) (local.get $off))))
              (f64.promote_f32 (f32.load (i32.add (local.get $mb) (local.get $off)))))))
        (local.set $off (i32.add (local.get $off) (i32.const 4)))
        (br_if $dims (i32.lt_u (local.get $off) (local.get $rowBytes))))
      (f64.store (i32.add (local.get $dst) (i32.shl (local.get $e) (i32.const 3))) (local.get $sum))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $e) (local.get $count)))))
)
