#!/bin/sh
# make-bundle.sh OUT [good|tampered-file|nested-entry|undeclared|junk]: writes OUT/native.tar.gz and OUT/bundle.json
# (digests from sha256sum). tampered-file: the archive carries a libloomc.so whose digest differs
# from the one the manifest pins (the archive digest matches). nested-entry: the archive holds
# sub/libloomc.so. undeclared: the archive also holds README. junk: the archive is not a tar file.
set -e
out=$1
mode=${2:-good}
rm -rf "$out" && mkdir -p "$out/src/sub"
cd "$out/src"
printf 'amdf library\n' > libamdf.so
printf 'fabric library\n' > libhrx_fabric.so
printf 'loom compiler\n' > libloomc.so
digest() { sha256sum "$1" | cut -d' ' -f1; }
amdf=$(digest libamdf.so); fabric=$(digest libhrx_fabric.so); loomc=$(digest libloomc.so)
case $mode in
  good) tar -czf ../native.tar.gz libamdf.so libhrx_fabric.so libloomc.so ;;
  tampered-file) printf 'patched\n' >> libloomc.so && tar -czf ../native.tar.gz libamdf.so libhrx_fabric.so libloomc.so ;;
  undeclared) echo hi > README && tar -czf ../native.tar.gz libamdf.so libhrx_fabric.so libloomc.so README ;;
  junk) echo junk > ../native.tar.gz ;;
  nested-entry) cp libloomc.so sub/ && tar -czf ../native.tar.gz libamdf.so libhrx_fabric.so sub/libloomc.so ;;
esac
archive=$(digest ../native.tar.gz)
cat > ../bundle.json <<JSON
{ "schema": 1, "target": "x86_64-unknown-linux-gnu-gfx1151", "revision": "test $mode",
  "url": "https://example.invalid/hrx-linux-x86_64-gfx1151.tar.gz", "archive_sha256": "$archive",
  "files": { "libamdf.so": "$amdf", "libhrx_fabric.so": "$fabric", "libloomc.so": "$loomc" } }
JSON
echo "$archive" > ../archive.sha256
