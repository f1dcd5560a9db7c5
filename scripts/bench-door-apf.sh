#!/bin/bash
# The native door's requests/s with API Priority and Fairness on against off
# (BENCHMARKS.md). Needs a release build (`cargo build --release --bin
# kubesim`), wrk, curl and taskset. Server pinned to CPU 0, wrk (1 thread, 32 connections) to CPU 1; APF on/off
# alternating (order flipped each pair); per-pair ratio and the median.
# SETUP=n creates n ConfigMaps first; URL is the path wrk asks for.
BIN=${BIN:-target/release/kubesim}; PAIRS=${PAIRS:-8}; D=${D:-3}; SETUP=${SETUP:-0}
URL=${URL:-/api/v1/namespaces/default/configmaps}
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
