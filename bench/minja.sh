#!/usr/bin/env bash
# Builds minja's side of the chat-template benchmark (minja/chat_bench.cpp)
# into results/minja_chat_bench. minja (google/minja, header-only, MIT) is
# not part of this repository: MINJA_DIR names a checkout of it, or the
# pinned commit is cloned into .minja (ignored by git). Needs g++ and Debian's
# nlohmann-json3-dev.
set -euo pipefail
cd "$(dirname "$0")"
MINJA_COMMIT=021c2293c187789ef13d56c6cfd89c9b134fd80f
mkdir -p results
dir=${MINJA_DIR:-.minja}
if [ ! -f "$dir/include/minja/chat-template.hpp" ]; then
  git clone --quiet https://github.com/google/minja "$dir"
  git -C "$dir" checkout --quiet "$MINJA_COMMIT"
fi
[ -f /usr/include/nlohmann/json.hpp ] || { echo "minja needs nlohmann-json3-dev (apt-get install nlohmann-json3-dev)" >&2; exit 1; }
g++ -O2 -std=c++17 -DMINJA_COMMIT="\"${MINJA_COMMIT:0:7}\"" -I"$dir/include" minja/chat_bench.cpp -o results/minja_chat_bench
