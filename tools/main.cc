// lrelu: the command-line tool. Each subcommand registers itself here with
// one line; see commands.h.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "commands.h"
#include "errors.h"
#include "lrelu/lrelu.hpp"

namespace {

// Prints the one line every failure gets; control characters become spaces
// so that no message (e.g. a library one) can spill onto a second line.
void PrintError(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  std::fprintf(stderr, "lrelu: error: %s\n", line.c_str());
}

// The first word before "--" that the parser must have taken for an
// unknown option: a file named like "-x.npy". Negative numbers ("--alpha
// -0.5") and known options ("--alpha=1", "-oy.npy") are not.
std::string UnknownDashWord(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (command == &app) {
      try {
        command = app.get_subcommand(word);
        continue;
      } catch (const CLI::OptionNotFound&) {
        command = &app;
      }
    }
    if (word.size() < 2 || word[0] != '-') continue;
    char* end = nullptr;
    std::strtod(word.c_str(), &end);
    if (*end == '\0') continue;
    const std::string name = word.substr(0, word.find('='));
    const std::string short_name = word.substr(0, 2);
    if (command->get_option_no_throw(name) != nullptr ||
        app.get_option_no_throw(name) != nullptr ||
        (word[1] != '-' && command->get_option_no_throw(short_name))) {
      continue;
    }
    return word;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "lrelu: LeakyReLU, y = x < 0 ? alpha * x : x, bit-exact (contract v" +
          std::to_string(LRELU_CONTRACT_VERSION) + ")",
      "lrelu"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version",
                       "lrelu " + lrelu::version() + " (contract v" +
                           std::to_string(lrelu::contract_version()) + ")");

  lrelu_cli::RegisterApplyCommand(app);
  lrelu_cli::RegisterBenchCommand(app);
  lrelu_cli::RegisterDemoCommand(app);
  lrelu_cli::RegisterEmitCommand(app);
  lrelu_cli::RegisterInfoCommand(app);
  lrelu_cli::RegisterTestCommand(app);

  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) std::cout << app.help();
    return lrelu_cli::kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string dash_word = UnknownDashWord(app, argc, argv);
    PrintError(std::string(e.what()) +
               (dash_word.empty()
                    ? ""
                    : " (" + lrelu_cli::Quote(dash_word) +
                          " is not an option; a file name that starts with "
                          "'-' goes after '--', which ends the options: "
                          "lrelu apply -o OUT.npy -- " +
                          dash_word + ")"));
    return lrelu_cli::kExitUsage;
  } catch (const lrelu_cli::ReportedFailure& e) {
    return e.exit_code();  // the command printed its own report
  } catch (const lrelu_cli::CliError& e) {
    PrintError(e.what());
    return e.exit_code();
  } catch (const lrelu::Error& e) {
    PrintError(std::string("library: ") + e.what());
    return lrelu_cli::kExitFailure;
  } catch (const std::bad_alloc&) {
    PrintError("out of memory");
    return lrelu_cli::kExitFailure;
  } catch (const std::exception& e) {
    PrintError(e.what());
    return lrelu_cli::kExitFailure;
  }
}
