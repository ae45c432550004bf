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
http { log_format c '\$connection \$request_method \$status'; access_log $B/ngx/access.log c;
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
: > $B/ngx/access.log
rm -rf out/* .oprun
/usr/bin/time -f "all miss (lookups + runs + stores, 1000 jobs): %e s wall" $O -q -j 2 --cache $URL/other > /dev/null
echo "requests: $(wc -l < $B/ngx/access.log), connections: $(cut -d' ' -f1 $B/ngx/access.log | sort -u | wc -l)"
cd $B/big && printf 'jobs:\n  big: {command: "head -c 100000000 /dev/urandom > big.bin", outputs: [big.bin]}\n' > jobs.yaml
$O -q --cache $B/bigcache > /dev/null; cp big.bin $B/src.bin
hyperfine -N -w 2 -r 10 --prepare "rm -rf $B/big/big.bin $B/big/.oprun $B/dst.bin" \
  "$O -q --cache $B/bigcache" "cp $B/src.bin $B/dst.bin" 2>&1 | grep -E "Time|±|Benchmark"
kill $(cat $B/ngx/nginx.pid)
