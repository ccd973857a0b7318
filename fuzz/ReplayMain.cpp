//===- ReplayMain.cpp - runs a fuzz target on files, without libFuzzer ----===//
//
// For compilers without libFuzzer: `gplace-fuzz-X FILE|DIR...` calls the
// target once per file (a directory: each file in it), as libFuzzer does
// with `-runs=0`, and exits 0 if none crashed (a crash ends the process)
// and there was at least one. Arguments starting with `-` (libFuzzer's
// flags) are ignored, so that one command line serves both builds.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
  return 0;
}

int main(int argc, char **argv) {
  int failures = 0, files = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-')
      continue;
    std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto &entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file()) {
          failures += replay(entry.path());
          ++files;
        }
    } else {
      failures += replay(path);
      ++files;
    }
  }
  std::printf("replayed %d inputs\n", files);
  return failures || files == 0 ? 1 : 0;
}
