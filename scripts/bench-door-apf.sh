#!/bin/bash
# The native door's requests/s with API Priority and Fairness on against off
# (BENCHMARKS.md). Needs a release build (`cargo build --release --bin
# kubesim`), wrk, curl and taskset. Server pinned to CPU 0, wrk (1 thread, 32 connections) to CPU 1; APF on/off
# alternating (order flipped each pair); per-pair ratio and the median.
# SETUP=n creates n ConfigMaps first; URL is the path wrk asks for.
#
# `./scripts/bench-door-apf.sh instructions` counts instead of timing: the
# server under valgrind (cachegrind, no cache simulation) serving wrk for
# 10 s, APF on and off; instructions per request are the run's total less
# a run that served nothing (start-up), over the requests served. Counts
# do not move with the neighbours' load as requests/s do (~3 minutes).
BIN=${BIN:-target/release/kubesim}; PAIRS=${PAIRS:-8}; D=${D:-3}; SETUP=${SETUP:-0}
URL=${URL:-/api/v1/namespaces/default/configmaps}
if [ "${1:-}" = instructions ]; then
  for tool in valgrind wrk; do
    command -v $tool >/dev/null || { echo "bench-door-apf: needs $tool (apt-get install -y $tool)" >&2; exit 2; }
  done
  count() { # $1: APF on?, $2: seconds of load (0: none) -> "instructions requests"
    local out; out=$(mktemp)
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null $BIN serve --listen 127.0.0.1:16444 \
      --controllers none --starter none --enable-priority-and-fairness=$1 >/dev/null 2>"$out" &
    local p=$! n=0; sleep 8
    if [ "$2" != 0 ]; then
      n=$(wrk -t1 -c8 -d${2}s -H 'Impersonate-User: bob' http://127.0.0.1:16444$URL | awk '/requests in/ {print $1}')
    fi
    kill -INT $p; wait $p 2>/dev/null
    echo "$(sed -n 's/.*I *refs: *//p' "$out" | tr -d ,) $n"; rm -f "$out"
  }
  for apf in true false; do
    read -r idle _ < <(count $apf 0)
    read -r busy n < <(count $apf 10)
    per=$(( (busy - idle) / n )); echo "APF $apf: $per instructions a request ($n requests)"
    eval "per_$apf=$per"
  done
  python3 -c "import sys; on,off=map(int,sys.argv[1:]); print(f'APF adds {on-off} instructions a request; off/on {off/on:.3f}')" "$per_true" "$per_false"
  exit 0
fi
run() {
  taskset -c 0 $BIN serve --listen 127.0.0.1:16444 --controllers none --starter none --enable-priority-and-fairness=$1 >/dev/null 2>&1 &
  P=$!; sleep 0.7
  for i in $(seq 1 $SETUP); do
    curl -s -o /dev/null -X POST -H 'Content-Type: application/json' http://127.0.0.1:16444/api/v1/namespaces/default/configmaps \
      -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-$i\"},\"data\":{\"k\":\"$(printf 'v%.0s' $(seq 1 200))\"}}"
  done
  R=$(taskset -c 1 wrk -t1 -c32 -d${D}s -H 'Impersonate-User: bob' http://127.0.0.1:16444$URL | grep Requests/sec | awk '{print $2}')
  kill $P; wait $P 2>/dev/null; echo $R
}
RAT=()
for i in $(seq $PAIRS); do
  if [ $((i%2)) = 1 ]; then ON=$(run true); OFF=$(run false); else OFF=$(run false); ON=$(run true); fi
  RAT+=($(python3 -c "print(round($ON/$OFF,3))"))
  echo "on=$ON off=$OFF ratio=${RAT[-1]}"
done
python3 -c "import statistics,sys; r=[float(x) for x in sys.argv[1:]]; print('median ratio', statistics.median(r), 'range', min(r), max(r))" "${RAT[@]}"
