// `lrelu apply` on a 3 GiB .npy file with 1 GiB of address space (ulimit
// -v): the tool must stream the data in bounded memory. The file is made
// sparse (header, ftruncate, then written blocks at known places), so it
// takes seconds to create; the output is checked at every written block and
// at samples of the zero regions between them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "npy.h"
#include "reference/reference.h"

namespace lrelu::long_tests {
namespace {

constexpr uint64_t kElements = (uint64_t{3} << 30) / 4;  // 3 GiB of float32
constexpr uint64_t kBlock = 4096;                        // elements per block
constexpr uint64_t kSpacing = uint64_t{16} << 20;        // elements apart

// The binary this build made, unless LRELU_CLI names another.
std::string Lrelu() {
  const char* path = std::getenv("LRELU_CLI");
  return path != nullptr ? path : LRELU_CLI_PATH;
}

uint32_t Pattern(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  return static_cast<uint32_t>(z * 0xbf58476d1ce4e5b9ull >> 32);
}

void WriteAt(int fd, const void* data, size_t bytes, uint64_t offset) {
  ASSERT_EQ(pwrite(fd, data, bytes, static_cast<off_t>(offset)),
            static_cast<ssize_t>(bytes));
}

// Block starts: every kSpacing elements, and the very last block.
std::vector<uint64_t> Blocks() {
  std::vector<uint64_t> starts;
  for (uint64_t s = 0; s + kBlock <= kElements; s += kSpacing)
    starts.push_back(s);
  starts.push_back(kElements - kBlock);
  return starts;
}

TEST(BigNpyFile, AppliedInBoundedMemory) {
  const std::string lrelu = Lrelu();
  const std::string dir = ::testing::TempDir();
  const std::string in = dir + "/lrelu_big_in.npy";
  const std::string out = dir + "/lrelu_big_out.npy";

  lrelu_cli::NpyHeader header;
  header.descr = "<f4";
  header.shape = {static_cast<int64_t>(kElements)};
  const std::string preamble = lrelu_cli::FormatNpyHeader(header);
  const int fd = open(in.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  WriteAt(fd, preamble.data(), preamble.size(), 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(preamble.size() + kElements * 4)),
            0);
  std::vector<uint32_t> block(kBlock);
  for (uint64_t start : Blocks()) {
    for (uint64_t i = 0; i < kBlock; ++i) block[i] = Pattern(start + i);
    WriteAt(fd, block.data(), kBlock * 4, preamble.size() + start * 4);
  }
  close(fd);

  // ulimit -v 1 GiB: well under the file's 3 GiB.
  const std::string command = "ulimit -v 1048576 && exec '" + lrelu +
                              "' apply '" + in + "' -o '" + out +
                              "' --threads 2";
  const auto begin = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  std::printf("lrelu apply: 3 GiB in %.1f s, peak RSS %ld MiB (limit 1024)\n",
              seconds, usage.ru_maxrss / 1024);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;

  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  ASSERT_EQ(static_cast<uint64_t>(st.st_size), preamble.size() + kElements * 4);
  const int ofd = open(out.c_str(), O_RDONLY);
  ASSERT_GE(ofd, 0);
  std::string got_preamble(preamble.size(), '\0');
  ASSERT_EQ(pread(ofd, got_preamble.data(), preamble.size(), 0),
            static_cast<ssize_t>(preamble.size()));
  EXPECT_EQ(got_preamble, preamble);
  const float alpha = 0.01f;
  for (uint64_t start : Blocks()) {
    ASSERT_EQ(pread(ofd, block.data(), kBlock * 4,
                    static_cast<off_t>(preamble.size() + start * 4)),
              static_cast<ssize_t>(kBlock * 4));
    for (uint64_t i = 0; i < kBlock; ++i) {
      ASSERT_EQ(block[i], reference::ForwardF32(Pattern(start + i), alpha))
          << "element " << start + i;
    }
    // Between blocks the input was zero, and so is the output.
    const uint64_t gap = start + kBlock + kSpacing / 2;
    if (gap + kBlock <= kElements) {
      ASSERT_EQ(pread(ofd, block.data(), kBlock * 4,
                      static_cast<off_t>(preamble.size() + gap * 4)),
                static_cast<ssize_t>(kBlock * 4));
      for (uint64_t i = 0; i < kBlock; ++i) ASSERT_EQ(block[i], 0u) << gap + i;
    }
  }
  close(ofd);
  unlink(in.c_str());
  unlink(out.c_str());
}

}  // namespace
}  // namespace lrelu::long_tests
