#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# Build a libFuzzer target (+ ASan, UBSan) and run it on one core.
#   testsuite/fuzz/run.sh [SECONDS] [protocol|models]
#   RUNS=10000000 testsuite/fuzz/run.sh 0 models   # stop after RUNS inputs
#   MAXLEN=1024 ...          # longest input (models: 4096)
#   EXTRA_CFLAGS=-fno-sanitize-coverage=trace-cmp ...  # ~2x faster, less
#                            # guided: for long runs from a grown corpus
#   SANITIZE=undefined ...   # sanitizers (default address,undefined;
#                            # without ASan the models target runs ~2x faster)
# protocol (default): every byte a peer sends, through the report service.
# models: report sequences through the whole model path (all curve forms,
#   both job policies, refits, predictions, plans of every policy).
# Needs (Debian): apt-get install clang libclang-rt-dev libjson-c-dev
# libmunge-dev libgsl-dev (contrib/install-deps.sh installs them;
# libclang-rt-dev pulls libclang-rt-NN-dev, which holds libFuzzer).
# Prints libFuzzer's final statistics; exits non-zero on a crash (the input
# is kept in $OUT). SECONDS 0 means no time limit.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_TO_RUN=${1:-60}
TARGET=${2:-protocol}
RUNS=${RUNS:--1}
SANITIZE=${SANITIZE:-address,undefined}
OUT=${OUT:-$(mktemp -d /tmp/optimus-fuzz.XXXXXX)}
SRCS=""
case "$TARGET" in
protocol)
	# the report service and all it calls: the whole report/ module
	# but the clients' side
	for f in $(ls "$TOP"/src/common/report/*.c); do
		case "$f" in */client.c|*/conf.c) continue ;; esac
		SRCS="$SRCS $f"
	done
	SRCS="$SRCS $(ls "$TOP"/src/common/util/*.c)"
	LIBS="$(pkg-config --libs json-c) -lmunge -lpthread"
	MAXLEN=${MAXLEN:-70000} ;;
models)
	for d in models plan alloc hints job util; do
		SRCS="$SRCS $(ls "$TOP"/src/common/$d/*.c)"
	done
	# the run a report names (job/ judges reports by it)
	SRCS="$SRCS $TOP/src/common/report/run.c"
	LIBS="$(pkg-config --libs json-c gsl) -lm"
	MAXLEN=${MAXLEN:-4096} ;;
*)
	echo "unknown target $TARGET (protocol, models)" >&2
	exit 2 ;;
esac
clang -g -O2 -std=gnu11 -fsanitize=fuzzer,$SANITIZE \
	-fno-sanitize-recover=undefined -I"$TOP/src/common" \
	$(pkg-config --cflags json-c) "$TOP/testsuite/fuzz/fuzz_$TARGET.c" $SRCS \
	${EXTRA_CFLAGS:-} $LIBS -o "$OUT/fuzz_$TARGET"
mkdir -p "$OUT/corpus"
if [ "$TARGET" = protocol ]; then
	cp "$TOP"/testsuite/fuzz/corpus/* "$OUT/corpus/" 2>/dev/null || true
else
	cp "$TOP"/testsuite/fuzz/corpus_$TARGET/* "$OUT/corpus/" 2>/dev/null || true
fi
cd "$OUT"
rc=0
./fuzz_$TARGET -max_total_time="$SECONDS_TO_RUN" -runs="$RUNS" \
	-max_len=$MAXLEN -print_final_stats=1 -artifact_prefix="$OUT/" \
	corpus > fuzz.log 2>&1 || rc=$?
tail -n 25 fuzz.log
echo "fuzz output in $OUT (exit $rc)"
exit $rc
