// A main() for the fuzz targets when they are built without libFuzzer (g++,
// or clang without -fsanitize=fuzzer): runs LLVMFuzzerTestOneInput once on
// every file named on the command line, or on every file in a named folder.
// This is how ctest replays the committed corpora and crash regressions in
// every build, sanitizers included.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

namespace {

bool missing = false;

std::vector<std::string> FilesUnder(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: cannot stat %s\n", path.c_str());
    missing = true;
    return {};
  }
  if (!S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> files;
  if (DIR* dir = opendir(path.c_str())) {
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == ".." || name == ".gitkeep") continue;
      for (auto& f : FilesUnder(path + "/" + name)) files.push_back(f);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());  // the same order on every run
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::string> files = FilesUnder(argv[i]);
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                       std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++count;
    }
  }
  std::printf("replayed %zu inputs\n", count);
  // A missing folder or no input at all is a broken test, not a pass.
  return count == 0 || missing ? 1 : 0;
}
