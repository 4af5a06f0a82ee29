#!/bin/sh
# Makes the demo upstream's video clips (assets/demo-video/<size>.mp4): one 10-second, low-bitrate
# H.264 MP4 per size the text-to-video route allows. Run once with Debian's ffmpeg
# (`apt-get install ffmpeg`); the clips are committed because no encoder exists at run time.
# A slowly turning three-colour gradient compresses to a few tens of KB even at 1080p and is
# visibly moving, so the playground shows a real, seekable video.
set -eu
out="$(dirname "$0")/../assets/demo-video"
mkdir -p "$out"
for size in 1280x720 1920x1080 720x1280 1024x1024; do
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "gradients=size=${size}:rate=12:speed=0.02:duration=10:nb_colors=3:seed=7" \
    -c:v libx264 -preset veryslow -crf 40 -maxrate 40k -bufsize 80k \
    -pix_fmt yuv420p -profile:v main -g 120 -movflags +faststart -an \
    -metadata title="generation-gateway demo ${size}" \
    "$out/${size}.mp4"
  echo "$out/${size}.mp4 $(wc -c < "$out/${size}.mp4") bytes"
done
