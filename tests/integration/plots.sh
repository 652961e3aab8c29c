#!/bin/sh
# needs: install (gnuplot, from ports/debian/setup.sh)
# itg-dec --plot DIR draws delay, jitter, bitrate and loss per interval
# and the delay distribution as PNGs with gnuplot: each exists, is an
# 800x480 PNG, and is not blank (its pixels decoded and compared); the
# series drawn are the CSV files beside them, the same as --csv writes.
BUILD=$1
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null 2>&1 || die "gnuplot is not installed (ports/debian/setup.sh installs it)"
start_recv "$WORK/recv.log"
for n in 300 500; do
  "$BIN/itg-send" -a 127.0.0.1 -Sdp "$RECV_PORT" -rp 0 -C "$n" -c 200 \
    -z "$n" >>"$WORK/send.out" 2>&1 || die "itg-send: $(cat "$WORK/send.out")"
done
stop_recv
check "itg-recv exits 0" [ $? -eq 0 ]

mkdir "$WORK/plots" || die "mkdir"
"$BIN/itg-dec" -v --plot "$WORK/plots" --plot-interval 100 "$WORK/recv.log" \
  >"$WORK/report.txt" 2>"$WORK/dec.err"
check "itg-dec --plot exits 0" [ $? -eq 0 ]
check "and the summary with -v" grep -Eq "^Total packets += +800$" "$WORK/report.txt"
check "nothing on stderr" [ ! -s "$WORK/dec.err" ]

cat >"$WORK/png.py" <<'PY'
import struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = ihdr
    assert depth == 8 and interlace == 0 and color in (2, 6), ihdr
    bpp = 3 if color == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, {r[i:i + bpp] for r in rows for i in range(0, stride, bpp)}

w, h, colours = pixels(sys.argv[1])
print(sys.argv[1], w, h, len(colours))
sys.exit(not (w == 800 and h == 480 and len(colours) >= 3))
PY
for name in delay jitter bitrate loss delay_hist; do
  check "$name.png: an 800x480 PNG that is not blank" \
    python3 "$WORK/png.py" "$WORK/plots/$name.png"
done
for s in d:delay j:jitter b:bitrate p:loss; do
  "$BIN/itg-dec" "-${s%%:*}" 100 --csv "$WORK/${s#*:}.csv" "$WORK/recv.log" >/dev/null
  check "${s#*:}.csv is the series of --csv" cmp -s "$WORK/${s#*:}.csv" "$WORK/plots/${s#*:}.csv"
done
check "delays.csv has every packet's delay (800 and a header)" \
  [ "$(wc -l <"$WORK/plots/delays.csv")" -eq 801 ]

"$BIN/itg-dec" --plot "$WORK/none" "$WORK/recv.log" >/dev/null 2>"$WORK/none.err"
check "a directory that does not exist exits 1" [ $? -eq 1 ]
check "naming the file it could not write" grep -q "cannot write $WORK/none/" "$WORK/none.err"
finish
