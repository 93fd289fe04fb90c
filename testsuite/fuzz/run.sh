#!/bin/sh
# Build the protocol fuzz target with clang's libFuzzer (+ ASan, UBSan) and
# run it for SECONDS (default 60) on one core. Needs: apt-get install clang
# libclang-rt-14-dev libjson-c-dev libmunge-dev. Prints libFuzzer's final
# statistics; exits non-zero on a crash (the input is kept in $OUT).
#   testsuite/fuzz/run.sh [SECONDS]
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_TO_RUN=${1:-60}
OUT=${OUT:-$(mktemp -d /tmp/optimus-fuzz.XXXXXX)}
CORE="protocol replay_cache report_queue report_history munge_auth report_service"
SRCS=""
for f in $CORE; do SRCS="$SRCS $TOP/src/common/report/$f.c"; done
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$TOP/src/common" \
	$(pkg-config --cflags json-c) "$TOP/testsuite/fuzz/fuzz_protocol.c" $SRCS \
	$(pkg-config --libs json-c) -lmunge -lpthread -o "$OUT/fuzz_protocol"
mkdir -p "$OUT/corpus"
cp "$TOP"/testsuite/fuzz/corpus/* "$OUT/corpus/" 2>/dev/null || true
cd "$OUT"
./fuzz_protocol -max_total_time="$SECONDS_TO_RUN" -max_len=70000 \
	-print_final_stats=1 -artifact_prefix="$OUT/" corpus 2>&1 | tail -n 25
echo "fuzz output in $OUT"
