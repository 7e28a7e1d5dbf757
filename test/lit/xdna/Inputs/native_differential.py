#!/usr/bin/env python3
"""Differential test of native AIE2P core code against the host twins.

Generates COUNT random C workers (arithmetic in 8/16/32-bit widths, loops, nested loops,
conditionals, selects, min/max, local arrays, 512-bit vectors with lane compares, selects and
min/max), one pipeline each, compiles them into one .xdna
image and runs every entry twice on the host reference device: with the image's native core code
(--core-model=native, the instruction-set simulator) and with the host twin (--core-model=twin).
The outputs must be identical. Prints a summary; exits 1 on any mismatch or failure.

usage: native_differential.py HRXCC HRX_RUN WORKDIR SEED COUNT [vector|float]

With `vector`, every worker is a vector-arithmetic worker: two of three 16 x float (fadd, fsub,
fneg, every compare predicate feeding selects, mask logic, bitcasts), one of three 16 x i32 or
32 x i16 with multiplies and xor, and the inputs are floats with signed zeros, infinities, NaNs
and subnormals among them.

With `float`, every worker multiplies floats: scalar float chains of fmul, fadd, fsub and fneg
(even workers), or 16 x float vectors with fmul among fadd, fsub and fneg (odd ones), a * b + c
among them (llvm.fmuladd); the inputs are floats of every magnitude (random bit patterns:
subnormals, products that overflow, underflow or round to subnormals).
"""
import os
import random
import re
import struct
import subprocess
import sys

N = 64  # i32 elements per record
PACKETS = 2


def gen_worker(rng, k):
    """C source of worker k: out[i] for every i from the input record."""
    depth_budget = [0]

    def leaf(scope):
        c = rng.random()
        if c < 0.35:
            return "in[%s]" % rng.choice(["i", "(i + %d) %% %d" % (rng.randrange(1, N), N), "(%d - 1 - i)" % N])
        if c < 0.55:
            return "(uint32_t)%d" % rng.choice([0, 1, 2, 3, 7, 31, 255, 1000, 65535, -1, -129, 123456789])
        if c < 0.75 and scope:
            return rng.choice(scope)
        return "(uint32_t)i"

    def expr(scope, depth):
        if depth <= 0 or rng.random() < 0.25:
            return leaf(scope)
        a, b = expr(scope, depth - 1), expr(scope, depth - 1)
        op = rng.choice(["+", "-", "*", "&", "|", "^", "<<", ">>", "sra", "cmp", "sel", "min", "max",
                         "i8", "u8", "i16", "u16", "ucmp"])
        if op in "+-*&|^":
            return "(uint32_t)(%s %s %s)" % (a, op, b)
        if op == "<<":
            return "(uint32_t)(%s << ((%s) & 31u))" % (a, b)
        if op == ">>":
            return "(uint32_t)(%s >> ((%s) & 31u))" % (a, b)
        if op == "sra":
            return "(uint32_t)((int32_t)(%s) >> ((%s) & 31u))" % (a, b)
        if op == "cmp":
            return "(uint32_t)((int32_t)(%s) %s (int32_t)(%s))" % (a, rng.choice(["<", "<=", ">", ">=", "==", "!="]), b)
        if op == "ucmp":
            return "(uint32_t)((%s) %s (%s))" % (a, rng.choice(["<", "<=", ">", ">="]), b)
        if op == "sel":
            return "((int32_t)(%s) < (int32_t)(%s) ? (%s) : (%s))" % (a, b, expr(scope, depth - 1), leaf(scope))
        if op == "min":
            return "((int32_t)(%s) < (int32_t)(%s) ? (%s) : (%s))" % (a, b, a, b)
        if op == "max":
            return "((%s) > (%s) ? (%s) : (%s))" % (a, b, a, b)
        if op == "i8":
            return "(uint32_t)(int32_t)(int8_t)(%s)" % a
        if op == "u8":
            return "(uint32_t)(uint8_t)(%s)" % a
        if op == "i16":
            return "(uint32_t)(int32_t)(int16_t)((int16_t)(%s) + (int16_t)(%s))" % (a, b)
        return "(uint32_t)(uint16_t)((uint16_t)(%s) * (uint16_t)(%s))" % (a, b)

    shape = rng.choice(["map", "map", "cond", "reduce", "nested", "local", "bytes", "while", "spill", "swap", "vector"])
    body = []
    if shape == "map":
        body.append("for (int i = 0; i < %d; ++i) out[i] = (int32_t)%s;" % (N, expr([], 4)))
    elif shape == "cond":
        body.append("for (int i = 0; i < %d; ++i) {" % N)
        body.append("  uint32_t a = %s;" % expr([], 3))
        body.append("  if ((int32_t)a %s (int32_t)%s) out[i] = (int32_t)%s; else out[i] = (int32_t)%s;" %
                    (rng.choice(["<", ">", "==", "!="]), expr(["a"], 2), expr(["a"], 3), expr(["a"], 2)))
        body.append("}")
    elif shape == "reduce":
        body.append("uint32_t acc = %d;" % rng.randrange(0, 100))
        body.append("for (int i = 0; i < %d; ++i) { acc = acc * %du + %s; out[i] = (int32_t)acc; }" %
                    (N, rng.choice([1, 3, 31]), expr(["acc"], 3)))
    elif shape == "nested":
        m = rng.randrange(2, 6)
        body.append("for (int i = 0; i < %d; ++i) {" % N)
        body.append("  uint32_t s = 0;")
        body.append("  for (int j = 0; j < %d; ++j) s += %s;" % (m, expr(["s", "(uint32_t)j"], 3).replace("in[i]", "in[(i + j) % " + str(N) + "]")))
        body.append("  out[i] = (int32_t)s;")
        body.append("}")
    elif shape == "local":
        body.append("uint32_t t[%d];" % N)
        body.append("for (int i = 0; i < %d; ++i) t[i] = %s;" % (N, expr([], 3)))
        body.append("for (int i = 0; i < %d; ++i) out[i] = (int32_t)(t[i] ^ t[%d - 1 - i]);" % (N, N))
    elif shape == "bytes":
        body.append("const uint8_t *b = (const uint8_t *)in; uint8_t *o = (uint8_t *)out;")
        body.append("for (int i = 0; i < %d; ++i) o[i] = (uint8_t)(b[i] %s b[(i * 7) %% %d]) + (uint8_t)%d;" %
                    (4 * N, rng.choice(["+", "^", "*", "-"]), 4 * N, rng.randrange(256)))
        body.append("const int16_t *h = (const int16_t *)in; int16_t *q = (int16_t *)out;")
        body.append("for (int i = 0; i < %d; ++i) if (h[i] < q[i]) q[i] = (int16_t)(h[i] >> %d);" % (2 * N, rng.randrange(8)))
    elif shape == "spill":
        # More live values than registers: 34 accumulators carried around the loop.
        names = ["v%d" % j for j in range(34)]
        body.append("uint32_t " + ", ".join("%s = %du" % (v, rng.randrange(1000)) for v in names) + ";")
        body.append("for (int i = 0; i < %d; ++i) {" % N)
        for j, v in enumerate(names):
            body.append("  %s = %s * %du + (uint32_t)in[(i + %d) %% %d];" % (v, names[(j + 1) % len(names)], rng.choice([1, 3, 5]), j, N))
        body.append("  out[i] = (int32_t)(" + " ^ ".join(names) + ");")
        body.append("}")
    elif shape == "vector":
        # 512-bit vectors (clang's vector extension): 16 x i32, 32 x i16 or 64 x i8 lanes.
        lanes, ctype = rng.choice([(16, "uint32_t"), (32, "uint16_t"), (64, "uint8_t")])
        body.append("typedef %s vec __attribute__((vector_size(64)));" % ctype)
        body.append("const vec *a = (const vec *)in; vec *o = (vec *)out;")
        body.append("vec acc = (vec){} + (%s)%d;" % (ctype, rng.randrange(100)))
        body.append("for (int i = 0; i < %d; ++i) {" % (N // 16))
        terms = []
        for _ in range(rng.randrange(1, 4)):
            terms.append(rng.choice(["a[i]", "a[%d - 1 - i]" % (N // 16), "acc", "((vec){} + (%s)%d)" % (ctype, rng.randrange(1 << 16))]))
        e = terms[0]
        for t in terms[1:]:
            e = "(%s %s %s)" % (e, rng.choice(["+", "-", "&", "|"]), t)
        if lanes in (16, 32) and rng.random() < 0.6:
            # Lane compares feeding selects, and min/max (vlt/vge + vsel, vmin_ge/vmax_lt):
            # unsigned on vec, signed through svec.
            stype = "int32_t" if lanes == 16 else "int16_t"
            body.insert(-3, "typedef %s svec __attribute__((vector_size(64)));" % stype)
            x, y = e, rng.choice(["a[i]", "acc", "a[%d - 1 - i]" % (N // 16)])
            op = rng.choice(["<", "<=", ">", ">="])
            if rng.random() < 0.5:
                e = "(vec)((svec)(%s) %s (svec)(%s) ? (svec)(%s) : (svec)(%s))" % (x, op, y, x, y)
            else:
                e = "((%s) %s (%s) ? (%s) : (%s) + (vec){} + (%s)1)" % (x, op, y, y, x, ctype)
        body.append("  acc = acc %s a[i];" % rng.choice(["+", "-", "|"]))
        body.append("  o[i] = %s;" % e)
        body.append("}")
    elif shape == "swap":
        # Loop-carried values that exchange places (a cycle of phi copies).
        body.append("uint32_t a = 1, b = 2, c = 3;")
        body.append("for (int i = 0; i < %d; ++i) { uint32_t t = a; a = b; b = c; c = t + (uint32_t)in[i]; out[i] = (int32_t)(a - c); }" % N)
    else:
        body.append("for (int i = 0; i < %d; ++i) {" % N)
        body.append("  uint32_t x = (uint32_t)in[i], n = 0;")
        body.append("  while (x != 0 && n < 40) { x = x >> %d; n += 1u + (x & 3u); }" % rng.randrange(1, 5))
        body.append("  out[i] = (int32_t)(n + %s);" % expr(["x", "n"], 2))
        body.append("}")
    return ("extern \"C\" void w%d(const int32_t *in, int32_t *out) {\n  " % k) + "\n  ".join(body) + "\n}\n"


def gen_float_worker(rng, k):
    """C source of a 16 x float vector worker k."""
    def term():
        return rng.choice(["a[i]", "a[%d - 1 - i]" % (N // 16), "acc", "((fvec){} + %sf)" %
                           rng.choice(["0.0", "-0.0", "1.5", "-2.25", "1e-40", "3e38", "0.1"])])

    def expr(depth):
        if depth <= 0 or rng.random() < 0.3:
            return term()
        op = rng.choice(["+", "-", "+", "neg", "sel"])
        if op == "neg":
            return "(-%s)" % expr(depth - 1)
        if op == "sel":
            cmp = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            x, y = expr(depth - 1), term()
            cond = "(%s %s %s)" % (x, cmp, y)
            if rng.random() < 0.3:
                cond = "!%s" % cond  # the unordered predicates
            return "(%s ? %s : %s)" % (cond, expr(depth - 1), term())
        return "(%s %s %s)" % (expr(depth - 1), op, expr(depth - 1))

    body = ["typedef float fvec __attribute__((vector_size(64)));",
            "typedef int32_t ivec __attribute__((vector_size(64)));",
            "const fvec *a = (const fvec *)in; fvec *o = (fvec *)out;",
            "fvec acc = (fvec){} + %sf;" % rng.choice(["0.0", "1.0", "-0.5"]),
            "for (int i = 0; i < %d; ++i) {" % (N // 16),
            "  acc = acc %s a[i];" % rng.choice(["+", "-"]),
            "  o[i] = %s;" % expr(3),
            "}"]
    if rng.random() < 0.3:  # a bitcast to integer lanes and back
        body[-2] = "  o[i] = (fvec)((ivec)(%s) + (ivec)a[i]);" % expr(2)
    return ("extern \"C\" void w%d(const int32_t *in, int32_t *out) {\n  " % k) + "\n  ".join(body) + "\n}\n"


def gen_int_vector_worker(rng, k):
    """C source of a 16 x i32 / 32 x i16 worker k with multiplies and xor."""
    ctype = rng.choice(["uint32_t", "uint16_t"])
    def term():
        return rng.choice(["a[i]", "a[%d - 1 - i]" % (N // 16), "acc", "((vec){} + (%s)%d)" % (ctype, rng.randrange(1 << 16))])
    def expr(depth):
        if depth <= 0 or rng.random() < 0.3:
            return term()
        op = rng.choice(["*", "*", "^", "+", "-", "sel"])
        if op == "sel":
            return "((%s) < (%s) ? (%s) : (%s))" % (expr(depth - 1), term(), expr(depth - 1), term())
        return "(%s %s %s)" % (expr(depth - 1), op, expr(depth - 1))
    body = ["typedef %s vec __attribute__((vector_size(64)));" % ctype,
            "const vec *a = (const vec *)in; vec *o = (vec *)out;",
            "vec acc = (vec){} + (%s)%d;" % (ctype, rng.randrange(100)),
            "for (int i = 0; i < %d; ++i) {" % (N // 16),
            "  acc = acc %s a[i];" % rng.choice(["*", "^", "+"]),
            "  o[i] = %s;" % expr(3),
            "}"]
    return ("extern \"C\" void w%d(const int32_t *in, int32_t *out) {\n  " % k) + "\n  ".join(body) + "\n}\n"


def gen_multiply_worker(rng, k):
    """C source of worker k multiplying floats: scalar (even k) or 16 x float (odd k)."""
    vector = k % 2 == 1
    consts = ["0.0", "-0.0", "1.5", "-2.25", "1e-40", "3e38", "0.1", "1e-20", "-7e19"]
    if vector:
        elems = ["a[i]", "a[%d - 1 - i]" % (N // 16), "acc"] + ["((fvec){} + %sf)" % c for c in consts]
    else:
        elems = ["a[i]", "a[(i + %d) %% %d]" % (rng.randrange(1, N), N), "acc"] + ["%sf" % c for c in consts]

    def expr(depth):
        if depth <= 0 or rng.random() < 0.25:
            return rng.choice(elems)
        op = rng.choice(["*", "*", "*", "+", "-", "neg", "fma"])
        if op == "neg":
            return "(- %s)" % expr(depth - 1)
        if op == "fma":  # clang contracts a * b + c into llvm.fmuladd
            return "(%s * %s + %s)" % (expr(depth - 1), expr(depth - 1), expr(depth - 1))
        return "(%s %s %s)" % (expr(depth - 1), op, expr(depth - 1))

    if vector:
        body = ["typedef float fvec __attribute__((vector_size(64)));",
                "const fvec *a = (const fvec *)in; fvec *o = (fvec *)out;",
                "fvec acc = (fvec){} + %sf;" % rng.choice(["0.0", "1.0", "-0.5"]),
                "for (int i = 0; i < %d; ++i) {" % (N // 16)]
    else:
        body = ["const float *a = (const float *)in; float *o = (float *)out;",
                "float acc = %sf;" % rng.choice(["0.0", "1.0", "-0.5"]),
                "for (int i = 0; i < %d; ++i) {" % N]
    body += ["  acc = acc %s a[i];" % rng.choice(["*", "+", "-"]), "  o[i] = %s;" % expr(3), "}"]
    return ("extern \"C\" void w%d(const int32_t *in, int32_t *out) {\n  " % k) + "\n  ".join(body) + "\n}\n"


def multiply_inputs(rng, words):
    """Floats of every magnitude: random bit patterns, the ends of the exponent range, ordinary
    values and the specials."""
    out = []
    for _ in range(words):
        c = rng.random()
        if c < 0.4:
            out.append(struct.pack("<I", rng.getrandbits(32)))
        elif c < 0.6:
            exponent = rng.choice([rng.randrange(0, 40), rng.randrange(215, 256)])
            out.append(struct.pack("<I", (rng.getrandbits(1) << 31) | (exponent << 23) | rng.getrandbits(23)))
        else:
            out.append(float_inputs(rng, 1))
    return b"".join(out)


def gen_vector_worker(rng, k):
    return gen_int_vector_worker(rng, k) if k % 3 == 2 else gen_float_worker(rng, k)


def float_inputs(rng, words):
    specials = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, -1e-45, 1e-40, 3.4e38, -3.4e38, 1.0, -1.0]
    values = [rng.choice(specials) if rng.random() < 0.25 else rng.uniform(-100, 100) for _ in range(words)]
    return struct.pack("<%df" % words, *values)


def same_up_to_nan_bits(a, b):
    """Equal words, or both NaN: LLVM leaves a NaN result's sign and payload unspecified (the host
    twin's x86 add returns its first NaN operand's bits, the simulator its own order's)."""
    if len(a) != len(b):
        return False
    def nan(w):
        return (w & 0x7F800000) == 0x7F800000 and (w & 0x7FFFFF) != 0
    wa, wb = struct.unpack("<%dI" % (len(a) // 4), a), struct.unpack("<%dI" % (len(b) // 4), b)
    return all(x == y or (nan(x) and nan(y)) for x, y in zip(wa, wb))


def gen_pipeline(k):
    return f"""
func.decl target(@core) @w{k}(%input: buffer, %output: buffer)
pipeline.def<kernel> public retain target(@array) @p{k}() launch(%input: buffer, %output: buffer) {{
  %packets = config.get @diff.packets : index
  %lanes = index.constant 1 : index
  %origin = index.constant 0 : offset
  %source = buffer.view %input[%origin] : buffer -> view<[%packets]x{N}xi32>
  %destination = buffer.view %output[%origin] : buffer -> view<[%packets]x{N}xi32>
  %group = group.create %lanes : index -> group
  %records = pipeline.read %source on %group : view<[%packets]x{N}xi32>, group -> pipeline.flow<tile<{N}xi32>>
  %done = pipeline.stage @w{k} on %group(%records) : (group, pipeline.flow<tile<{N}xi32>>) -> (pipeline.flow<tile<{N}xi32>>)
  pipeline.write %done to %destination : pipeline.flow<tile<{N}xi32>>, view<[%packets]x{N}xi32>
  pipeline.return
}}
"""


def main():
    hrxcc, hrx_run, work, seed, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    mode = sys.argv[6] if len(sys.argv) > 6 else ""
    floats = mode in ("vector", "float")
    generator = {"vector": gen_vector_worker, "float": gen_multiply_worker}.get(mode, gen_worker)
    os.makedirs(work, exist_ok=True)
    rng = random.Random(seed)
    cpp = "#include <stdint.h>\n" + "".join(generator(rng, k) for k in range(count))
    loom = "aie2p.target<array> @array\naie2p.target<core> @core\n" \
           "config.decl @diff.packets : %value: index where [range(%value, 1, 16)]\n" + \
           "".join(gen_pipeline(k) for k in range(count))
    open(os.path.join(work, "workers.cpp"), "w").write(cpp)
    open(os.path.join(work, "pipelines.loom"), "w").write(loom)
    image = os.path.join(work, "diff.xdna")
    compiled = subprocess.run([hrxcc, "-target", "xdna", "--config=diff.packets=%d" % PACKETS,
                               os.path.join(work, "pipelines.loom"), os.path.join(work, "workers.cpp"), "-o", image],
                              capture_output=True, text=True)
    if compiled.returncode != 0:
        print(compiled.stderr)
        return 1
    twins = set(re.findall(r"worker @(w\d+) keeps only its host twin", compiled.stderr))
    words = PACKETS * N
    data = multiply_inputs(rng, words) if mode == "float" else float_inputs(rng, words) if floats else struct.pack("<%di" % words, *[rng.randrange(-2**31, 2**31) for _ in range(words)])
    inp = os.path.join(work, "in.bin")
    open(inp, "wb").write(data)
    mismatches, native_calls = [], 0
    for k in range(count):
        outs = []
        for model in ("native", "twin"):
            out = os.path.join(work, "out-%d-%s.bin" % (k, model))
            run = subprocess.run([hrx_run, image, "--device=host", "--entry=p%d" % k, "--core-model=" + model,
                                  "--core-stats", "--input=%dxi32=@%s" % (words, inp), "--input=%dxi32=0" % words,
                                  "--output=@" + out], capture_output=True, text=True)
            if run.returncode != 0:
                print("p%d (%s) failed:\n%s" % (k, model, run.stderr))
                return 1
            calls = re.search(r"native core code: (\d+) stage call", run.stderr)
            if model == "native" and calls:
                native_calls += int(calls.group(1))
            outs.append(open(out, "rb").read())
        if outs[0] != outs[1] and not (floats and same_up_to_nan_bits(outs[0], outs[1])):
            mismatches.append("w%d" % k)
    native = count - len(twins)
    print("workers: %d, native: %d, twin only: %d, native stage calls: %d, mismatches: %d" %
          (count, native, len(twins), native_calls, len(mismatches)))
    for m in mismatches:
        print("MISMATCH", m)
    if native_calls != native * PACKETS:
        print("expected %d native stage calls" % (native * PACKETS))
        return 1
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
