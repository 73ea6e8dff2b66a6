// lrelu info: what this build of the library is and what it runs here.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "backends.h"
#include "commands.h"
#include "lrelu/lrelu.hpp"

namespace lrelu_cli {
namespace {

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words)
    text += (text.empty() ? "" : " ") + word;
  return text.empty() ? "(none)" : text;
}

nlohmann::json BackendJson(const BackendInfo& b) {
  return {
      {"name", b.name},           {"built", b.built},
      {"available", b.available}, {"device_count", b.devices.size()},
      {"devices", b.devices},     {"unavailable_reason", b.unavailable_reason},
  };
}

// "cpu      built, 1 device: ...", or why there is no device.
void PrintBackend(const BackendInfo& b) {
  std::printf("  %-8s %-10s", b.name.c_str(), b.built ? "built" : "not built");
  if (b.available) {
    std::printf("%zu device%s:", b.devices.size(),
                b.devices.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < b.devices.size(); ++i) {
      std::printf("%s %zu: %s", i == 0 ? "" : ",", i, b.devices[i].c_str());
    }
    std::printf("\n");
  } else {
    std::printf("no device: %s\n", b.unavailable_reason.c_str());
  }
}

}  // namespace

void RunInfo(bool json) {
  std::vector<BackendInfo> backends;
  for (lrelu_backend_t backend : AllBackends()) {
    backends.push_back(QueryBackend(backend));
  }
  const std::vector<std::string> compiled =
      SplitWords(lrelu_cpu_targets_compiled());
  // Index 0 is the target the library selects on this CPU.
  const std::vector<std::string> runnable = lrelu::cpu_targets();
  const std::string selected = runnable.empty() ? "" : runnable[0];
  const std::size_t threads = lrelu_hardware_threads();
  if (json) {
    nlohmann::json info = {
        {"version", lrelu::version()},
        {"contract_version", lrelu::contract_version()},
        {"cpu_targets_compiled", compiled},
        {"cpu_targets_runnable", runnable},
        {"cpu_target_selected", selected},
        {"hardware_threads", threads},
        {"backends", nlohmann::json::array()},
    };
    for (const BackendInfo& b : backends) {
      info["backends"].push_back(BackendJson(b));
    }
    std::cout << info.dump(2) << "\n";
    return;
  }
  std::printf("lrelu version:          %s\n", lrelu::version().c_str());
  std::printf("contract version:       %d\n", lrelu::contract_version());
  std::printf("SIMD targets compiled:  %s\n", JoinWords(compiled).c_str());
  std::printf("SIMD targets runnable:  %s\n", JoinWords(runnable).c_str());
  std::printf("SIMD target selected:   %s\n",
              selected.empty() ? "(none)" : selected.c_str());
  std::printf("hardware threads:       %zu\n", threads);
  std::printf("backends:\n");
  for (const BackendInfo& b : backends) PrintBackend(b);
}

}  // namespace lrelu_cli
