#!/bin/bash
# The cache of outputs (SPEC §14): a run restoring 1,000 jobs from a local nginx (WebDAV) and the
# requests and connections it used, the same run when every lookup misses, and a 100 MB output
# restored from a folder cache against `cp` of it. OPRUN: the binary (default .build/release/oprun).
set -e
O=${OPRUN:-$(pwd)/.build/release/oprun}
B=$(mktemp -d); rm -rf $B/ngx $B/p1000 $B/big; mkdir -p $B/ngx/root $B/p1000 $B/big
PORT=18795
cat > $B/ngx/nginx.conf <<C
user root; daemon on; worker_processes 1; pid $B/ngx/nginx.pid; error_log $B/ngx/error.log;
events { worker_connections 1024; }
http { log_format c '\$connection \$request_method \$status \$msec \$request_time \$uri'; access_log $B/ngx/access.log c;
  client_body_temp_path $B/ngx/body;
  server { listen 127.0.0.1:$PORT; root $B/ngx/root;
    location / { dav_methods PUT; create_full_put_path on; client_max_body_size 0; } } }
C
/usr/sbin/nginx -c $B/ngx/nginx.conf -p $B/ngx -e $B/ngx/error.log
URL=http://127.0.0.1:$PORT
{ echo "jobs:"; for i in $(seq 1000); do echo "  j$i: {command: 'echo $i > out/$i', outputs: [out/$i]}"; done; } > $B/p1000/jobs.yaml
mkdir -p $B/p1000/out
cd $B/p1000 && $O -q -j 2 --cache $URL > /dev/null
: > $B/ngx/access.log
rm -rf out/* .oprun
/usr/bin/time -f "restore 1000 jobs: %e s wall" $O -q -j 2 --cache $URL > /dev/null
echo "requests: $(wc -l < $B/ngx/access.log), connections: $(cut -d' ' -f1 $B/ngx/access.log | sort -u | wc -l)"
# The lookups alone: from the first entry asked for (its request's start) to the last one answered.
awk '$6 ~ /^\/ac\// { start = $4 - $5; if (first == "" || start < first) first = start; if ($4 > last) last = $4; n++ }
  END { printf "lookups: %d entries asked for in %.3f s\n", n, last - first }' $B/ngx/access.log
: > $B/ngx/access.log
rm -rf out/* .oprun
/usr/bin/time -f "all miss (lookups + runs + stores, 1000 jobs): %e s wall" $O -q -j 2 --cache $URL/other > /dev/null
echo "requests: $(wc -l < $B/ngx/access.log), connections: $(cut -d' ' -f1 $B/ngx/access.log | sort -u | wc -l)"
awk '$6 ~ /^\/other\/ac\// && $2 == "GET" { start = $4 - $5; if (first == "" || start < first) first = start; if ($4 > last) last = $4; n++ }
  END { printf "lookups: %d entries asked for in %.3f s (while the jobs ran)\n", n, last - first }' $B/ngx/access.log
cd $B/big && printf 'jobs:\n  big: {command: "head -c 100000000 /dev/urandom > big.bin", outputs: [big.bin]}\n' > jobs.yaml
# What this user's runs found of blobs is kept in their state folder: a folder of the benchmark's own.
export XDG_STATE_HOME=$B/state
$O -q --cache $B/bigcache > /dev/null; cp big.bin $B/src.bin
# As a blob stored by an earlier run: older than the second within which a file's times say nothing.
sleep 1.1
hyperfine -N -w 2 -r 15 \
  -n "restore, the blob checked here before" --prepare "rm -rf $B/big/big.bin $B/big/.oprun" "$O -q --cache $B/bigcache" \
  -n "first restore on this machine (the blob read and checked)" \
  --prepare "rm -rf $B/big/big.bin $B/big/.oprun $B/state/oprun/verified-blobs" "$O -q --cache $B/bigcache" \
  -n "cp" --prepare "rm -f $B/dst.bin" "cp $B/src.bin $B/dst.bin" 2>&1 | grep -E "Time|±|Benchmark"
kill $(cat $B/ngx/nginx.pid)
