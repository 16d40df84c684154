#!/usr/bin/env bash
# npm run install-bin: puts the built binary (npm run build → dist/gothalo) on
# the PATH, in ~/.local/bin unless GOTHALO_BIN_DIR names another directory.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${GOTHALO_BINARY:-dist/gothalo}"
dir="${GOTHALO_BIN_DIR:-$HOME/.local/bin}"
if [ ! -x "$src" ]; then
  echo "install-bin: $src is missing: run npm run build first" >&2
  exit 1
fi
mkdir -p "$dir"
# copy then rename: a running gothalo keeps its old file, the new one takes the name
cp "$src" "$dir/.gothalo.new.$$"
chmod 755 "$dir/.gothalo.new.$$"
mv -f "$dir/.gothalo.new.$$" "$dir/gothalo"
echo "installed $dir/gothalo ($("$dir/gothalo" --version))"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "note: $dir is not on your PATH; add it, e.g. echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile" ;;
esac
