#!/usr/bin/env bash
# Builds the libFuzzer targets (test/fuzz) in build-fuzz and runs each for SECONDS (default 60),
# one after another, from seed corpora made out of the test inputs. Prints runs, exec/s and
# findings per fuzzer; every finding is copied to test/fuzz/regressions/<Fuzzer>/ (commit it as a
# regression input) and makes the script exit 1.
#
#   scripts/fuzz.sh [SECONDS] [FUZZER...]
#
# Environment: HRX_FUZZ_BUILD (build directory, default build-fuzz), HRX_FUZZ_JOBS (build jobs,
# default 2), HRX_FUZZ_TIMEOUT (seconds one input may take, default 60; libFuzzer measures wall
# time, so raise it on a loaded machine), HRXCC (an hrxcc used to compile seed artifacts for the binary-format fuzzers;
# default: the first of build-fuzz/bin/hrxcc and build/bin/hrxcc that exists; without one those
# fuzzers start from their regression inputs only), HRX_FUZZ_NO_BUILD=1 (run the fuzzers as built,
# e.g. while another build runs in the same directory).
set -euo pipefail

seconds=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_FUZZ_BUILD:-$root/build-fuzz}
jobs=${HRX_FUZZ_JOBS:-2}
timeout=${HRX_FUZZ_TIMEOUT:-60}
llvm_bin=/usr/lib/llvm-22/bin
all_fuzzers=(LoomFuzzer CxxImporterFuzzer HrxRunValueFuzzer VerifyAnnotationFuzzer XdnaImageFuzzer
             Elf64SectionFuzzer FatContainerFuzzer CompileReportFuzzer BundleManifestFuzzer TransactionFuzzer
             HrxRunCommandLineFuzzer JsonDocumentFuzzer Aie2pDecoderFuzzer AmdgpuCodeObjectFuzzer
             CheckProgramFuzzer ElfReaderFuzzer ArrayPlanFuzzer KernelContractFuzzer IdentityFuzzer
             AmdgpuManifestFuzzer)
if [[ $# -gt 0 ]]; then fuzzers=("$@"); else fuzzers=("${all_fuzzers[@]}"); fi

if [[ -n ${HRX_FUZZ_NO_BUILD:-} ]]; then
  :
elif [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
        -DHRX_FUZZ=ON -DHRX_SANITIZE=address,undefined
fi
[[ -n ${HRX_FUZZ_NO_BUILD:-} ]] || cmake --build "$build" --target "${fuzzers[@]}" -- -j"$jobs"

work=$(mktemp -d "${TMPDIR:-/tmp}/hrx-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- Seeds -------------------------------------------------------------------------------------

# Copies files found under the test and example trees (find arguments) into corpus $1.
seed_files() {
  local corpus=$1
  shift
  find "$root/test" "$root/examples" -type f \( "$@" \) -print0 |
    while IFS= read -r -d '' f; do cp "$f" "$corpus/$(printf '%s' "$f" | sha1sum | cut -c1-16)"; done
}

# Writes $3 to corpus $1 under name $2, prefixed by the mode byte $4 (octal escape).
seed_with_mode() { printf "$4" >"$1/$2"; cat "$3" >>"$1/$2"; }

# Binary artifacts compiled from the lit inputs, when an hrxcc is at hand.
artifacts=$work/artifacts-seed
mkdir -p "$artifacts"
hrxcc=${HRXCC:-}
for candidate in "$build/bin/hrxcc" "$root/build/bin/hrxcc"; do
  [[ -z $hrxcc && -x $candidate ]] && hrxcc=$candidate
done
if [[ -n $hrxcc ]]; then
  lit=$root/test/lit
  (
    cd "$artifacts"
    "$hrxcc" --offload-arch=gfx1151 --config=add.groups=4 "$lit/amdgpu/Inputs/add_delta.loom" -o add.hsaco
    "$hrxcc" -target xdna --columns=2 --config=gemm.batch=64 --report=details --report-output=report.json \
             "$lit/xdna/Inputs/batched-gemm.loom" -o gemm.xdna
    "$hrxcc" -target xdna --columns=2 --config=gemm.batch=64 --emit=array-plan \
             "$lit/xdna/Inputs/batched-gemm.loom" -o plan.json
    "$hrxcc" -target xdna --config=quickstart.packets=1 "$root/examples/quickstart/pipeline.loom" \
             "$root/examples/quickstart/worker.cpp" -o quickstart.xdna
    # The AMDGPU manifest (typed launch arguments) and launch table, for CompileReportFuzzer.
    "$llvm_bin/llvm-objcopy" --dump-section=.hrx.manifest=manifest.json --dump-section=.hrx.launch=launch.json \
        add.hsaco add-sections.tmp && rm -f add-sections.tmp
    "$llvm_bin/llvm-offload-binary" -o both.fat \
        --image=file=add.hsaco,triple=amdgcn-amd-amdhsa,arch=gfx1151,kind=hip \
        --image=file=gemm.xdna,triple=aie2p,arch=npu5,kind=none
  ) >"$work/seed-artifacts.log" 2>&1 ||
    echo "fuzz.sh: note: some seed artifacts could not be compiled with $hrxcc (see below); continuing" >&2
  [[ -s $work/seed-artifacts.log ]] && sed 's/^/  /' "$work/seed-artifacts.log" >&2
  # The JSON payloads every artifact carries (array plan, contract table, identity), one file
  # each: <artifact>-plan.json, -contract.json, -identity.json. An artifact without one (the
  # code object has no array plan) just gives no seed.
  for f in "$artifacts"/*.xdna "$artifacts"/*.hsaco; do
    [[ -s $f ]] || continue
    for section in plan contract identity; do
      "$llvm_bin/llvm-objcopy" --dump-section=.hrx.$section="${f%.*}-$(basename "${f##*.}")-$section.json" \
          "$f" "$work/dump.tmp" >/dev/null 2>&1 || true
    done
  done
  rm -f "$work/dump.tmp"
else
  echo "fuzz.sh: note: no hrxcc found (set HRXCC); the binary-format fuzzers start without artifact seeds" >&2
fi
seed_artifacts() {
  local corpus=$1 pattern=$2 f
  for f in "$artifacts"/$pattern; do [[ -s $f ]] && cp "$f" "$corpus/"; done
  return 0
}

# ELF files for ElfReaderFuzzer behind its mode byte: .xdna images as ELF32 (0), code objects as
# ELF64 (1), and the unit tests' host-code object as ELF64 through the host-code validator (3).
seed_elf() {
  local corpus=$1 f
  for f in "$artifacts"/*.xdna; do [[ -s $f ]] && seed_with_mode "$corpus" "32-$(basename "$f")" "$f" '\000'; done
  for f in "$artifacts"/*.hsaco; do [[ -s $f ]] && seed_with_mode "$corpus" "64-$(basename "$f")" "$f" '\001'; done
  for f in "$build/test/unit/runtime/HostKernels.so" "$root/build/test/unit/runtime/HostKernels.so"; do
    [[ -s $f ]] && seed_with_mode "$corpus" "host-$(basename "$f")" "$f" '\003' && break
  done
  return 0
}

# AIE2P programs for Aie2pDecoderFuzzer: every `//--- NAME.s` part of the aie2p lit tests,
# assembled by hrx-mc (when one is at hand), plus the raw `.bin` parts as written.
seed_aie2p() {
  local corpus=$1 mc=
  for candidate in "$build/bin/hrx-mc" "$root/build/bin/hrx-mc"; do
    [[ -z $mc && -x $candidate ]] && mc=$candidate
  done
  python3 - "$root/test/lit/aie2p" "$corpus" <<'PY'
import glob, os, re, sys
for test in sorted(glob.glob(os.path.join(sys.argv[1], '*.test'))):
    parts = re.split(r'^//--- (\S+)\n', open(test).read(), flags=re.M)
    for name, text in zip(parts[1::2], parts[2::2]):
        if name.endswith('.s'):
            open(os.path.join(sys.argv[2], '%s-%s' % (os.path.basename(test), name)), 'w').write(text)
PY
  local f
  for f in "$corpus"/*.s; do
    [[ -e $f ]] || continue
    # Some parts are the error tests' invalid programs: those assemble to nothing.
    [[ -z $mc ]] || "$mc" --arch=aie2p --assemble "$f" -o "${f%.s}.bin" >/dev/null 2>&1 || rm -f "${f%.s}.bin"
    rm -f "$f"
  done
  return 0
}

# Typed-input specs (mode byte 0) and .npy files (mode byte 1) for HrxRunValueFuzzer.
seed_values() {
  local corpus=$1 i=0 spec
  for spec in '4xi32=1 2 3 4' '2x2xf32=[1.5, 2][3, -4]' 'f64=0.25' '8xbf16=1' '3xui8=255 0 7' 'i64=-9' \
              '2x3xi16=1 2 3 4 5 6' '0xf32=' '4xui64=18446744073709551615 0 1 2' '3xf16=0.5 -2 65504'; do
    printf '\0%s' "$spec" >"$corpus/spec$((i++))"
  done
  python3 - "$corpus" <<'EOF'
import struct, sys
def npy(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
    return b'\x01' + b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + data
seeds = {'f4': npy('<f4', '(4,)', struct.pack('<4f', 1, 2, 3, 4)),
         'i4': npy('<i4', '(2, 2)', struct.pack('<4i', 1, -2, 3, -4)),
         'u1': npy('|u1', '(3,)', bytes([1, 2, 255])),
         'f8': npy('<f8', '()', struct.pack('<d', 0.5)),
         'f2': npy('<f2', '(2,)', struct.pack('<2e', 1.5, -0.25))}
for name, data in seeds.items():
    open('%s/npy-%s' % (sys.argv[1], name), 'wb').write(data)
EOF
}

# The COMMAND loads (the transactions) of the seed .xdna images, one file per load.
seed_transactions() {
  local corpus=$1 f
  for f in "$artifacts"/*.xdna; do
    [[ -s $f ]] || continue
    python3 - "$f" "$corpus" <<'EOF'
import os, struct, sys
b = open(sys.argv[1], 'rb').read()
phoff, phnum = struct.unpack_from('<I', b, 28)[0], struct.unpack_from('<H', b, 44)[0]
for i in range(1, phnum):
    kind, offset, vaddr, paddr, filesz = struct.unpack_from('<5I', b, phoff + 32 * i)
    if kind == 1 and filesz >= 16 and b[offset:offset + 3] == bytes([0, 1, 4]):
        name = '%s-%d-%d' % (os.path.basename(sys.argv[1]), paddr, vaddr)
        open(os.path.join(sys.argv[2], name), 'wb').write(b[offset:offset + filesz])
EOF
  done
  return 0
}

# HrxRunCommandLineFuzzer: the artifacts it runs (HRX_FUZZ_ARTIFACTS, sorted: add.hsaco,
# both.fat, gemm.xdna, quickstart.xdna) and command lines for them (test/fuzz/HrxRunCommandLineFuzzer.cpp).
cli_artifacts=$work/cli-artifacts
mkdir -p "$cli_artifacts"
for f in add.hsaco both.fat gemm.xdna quickstart.xdna; do [[ -s $artifacts/$f ]] && cp "$artifacts/$f" "$cli_artifacts/"; done
seed_command_lines() {
  python3 - "$1" <<'EOF'
import struct, sys
def npy(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + data
def seed(artifact, files, args):
    out = bytes([artifact, len(files)])
    for f in files:
        out += struct.pack('<H', len(f)) + f
    return out + '\n'.join(args).encode()
f6 = npy('<f4', '(6,)', struct.pack('<6f', 1, 2, 3, 4, 5, 6))
seeds = [
    seed(0, [], ['--workload=500', '--input=i64=500', '--input=f32=1.5', '--input=500xf32=2', '--expected_output=500xf32=3.5']),
    seed(0, [f6], ['--workload=6', '--input=i64=6', '--input=f32=1', '--input=@%0', '--output=@out.npy']),
    seed(0, [f6, b'\0' * 24], ['--workload=6', '--input=i64=1000', '--input=f32=1', '--binding=%1']),
    seed(1, [], ['--list']),
    seed(3, [], ['--input=64xi32=21', '--input=64xi32=0', '--expected_output=64xi32=42', '--trace=trace.json']),
    seed(3, [npy('<i4', '(64,)', struct.pack('<64i', *range(64))), b'\0' * 256], ['--binding=%0', '--binding=%1', '--output=1=o.bin']),
    seed(2, [], ['--list', '--columns=2']),
]
for i, data in enumerate(seeds):
    open('%s/cli%d' % (sys.argv[1], i), 'wb').write(data)
EOF
}

make_corpus() {
  local name=$1 corpus=$work/corpus/$1 f
  mkdir -p "$corpus"
  case $name in
    LoomFuzzer) seed_files "$corpus" -name '*.loom' ;;
    VerifyAnnotationFuzzer) seed_files "$corpus" -name '*.loom' -o -name '*.c' -o -name '*.cpp' ;;
    CxxImporterFuzzer)
      # Mode byte: 1 = C23 ("fuzz.c"), 0 = C++26.
      while IFS= read -r -d '' f; do
        if [[ $f == *.c ]]; then mode='\001'; else mode='\000'; fi
        seed_with_mode "$corpus" "$(printf '%s' "$f" | sha1sum | cut -c1-16)" "$f" "$mode"
      done < <(find "$root/test/lit/cxx" "$root/examples" -type f \( -name '*.c' -o -name '*.cpp' \) -print0)
      ;;
    HrxRunValueFuzzer) seed_values "$corpus" ;;
    XdnaImageFuzzer) seed_artifacts "$corpus" '*.xdna' ;;
    TransactionFuzzer) seed_transactions "$corpus" ;;
    Elf64SectionFuzzer | AmdgpuCodeObjectFuzzer) seed_artifacts "$corpus" '*.hsaco' ;;
    Aie2pDecoderFuzzer) seed_aie2p "$corpus" ;;
    ElfReaderFuzzer) seed_elf "$corpus" ;;
    FatContainerFuzzer) seed_artifacts "$corpus" '*.fat' ;;
    CompileReportFuzzer) seed_artifacts "$corpus" '*.json' ;;
    BundleManifestFuzzer) seed_files "$corpus" -name 'bundle*.json' ;;
    JsonDocumentFuzzer) seed_artifacts "$corpus" '*.json' ;;
    HrxRunCommandLineFuzzer) seed_command_lines "$corpus" ;;
    ArrayPlanFuzzer) seed_artifacts "$corpus" '*-plan.json' ;;
    KernelContractFuzzer)
      # The tables, and each table's contracts on their own (what readKernelContract reads).
      seed_artifacts "$corpus" '*-contract.json'
      python3 - "$corpus" <<'EOF'
import glob, json, os, sys
for table in glob.glob(os.path.join(sys.argv[1], '*-contract.json')):
    for i, contract in enumerate(json.load(open(table))['contracts'].values()):
        open('%s-%d' % (table[:-len('.json')], i), 'w').write(json.dumps(contract, separators=(',', ':')) + '\n')
EOF
      ;;
    IdentityFuzzer) seed_artifacts "$corpus" '*-identity.json' ;;
    AmdgpuManifestFuzzer) seed_artifacts "$corpus" manifest.json && seed_artifacts "$corpus" launch.json ;;
  esac
  if [[ -d $root/test/fuzz/regressions/$name ]]; then cp "$root/test/fuzz/regressions/$name"/* "$corpus/" 2>/dev/null || true; fi
  # libFuzzer needs at least one input to start from.
  [[ -n $(ls -A "$corpus") ]] || printf '\n' >"$corpus/empty"
}

# --- Runs --------------------------------------------------------------------------------------

status=0
printf '%-24s %8s %10s %8s %9s %s\n' fuzzer seconds runs exec/s seeds findings
for name in "${fuzzers[@]}"; do
  make_corpus "$name"
  seeds=$(ls "$work/corpus/$name" | wc -l)
  findings=$work/findings/$name
  mkdir -p "$findings"
  log=$work/$name.log
  start=$(date +%s)
  extra=()
  # hrx-run prints results and errors for every input: keep them out of the log.
  [[ $name == HrxRunCommandLineFuzzer ]] && extra=(-close_fd_mask=3)
  HRX_GUARD_FAULTS=crash HRX_FUZZ_ARTIFACTS=$cli_artifacts "$build/bin/$name" "${extra[@]}" "$work/corpus/$name" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2560 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1 || true
  elapsed=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # libFuzzer also saves slow units, which are not findings. A timeout that does not come back
  # when the input is rerun alone was the machine's load, not the input's.
  rm -f "$findings"/slow-unit-*
  for f in "$findings"/timeout-*; do
    [[ -e $f ]] || continue
    if HRX_FUZZ_ARTIFACTS=$cli_artifacts "$build/bin/$name" -timeout="$timeout" -rss_limit_mb=2560 "$f" >/dev/null 2>&1; then
      echo "  $name: $(basename "$f") did not time out when rerun alone (machine load); dropped" >&2
      rm -f "$f"
    fi
  done
  found=$(ls "$findings" | wc -l)
  printf '%-24s %8s %10s %8s %9s %s\n' "$name" "$elapsed" "${runs:-?}" "${rate:-?}" "$seeds" "$found"
  if [[ $found -gt 0 ]]; then
    status=1
    mkdir -p "$root/test/fuzz/regressions/$name"
    cp "$findings"/* "$root/test/fuzz/regressions/$name/"
    echo "  findings copied to test/fuzz/regressions/$name/; the report:" >&2
    grep -A40 -m1 -E '^==[0-9]+==ERROR|runtime error|deadly signal|ERROR: libFuzzer' "$log" | sed 's/^/  /' >&2
  elif [[ -z $runs ]]; then
    status=1
    echo "  $name did not run; its log:" >&2
    tail -20 "$log" | sed 's/^/  /' >&2
  fi
done
exit $status
