//===- Outputs.cpp - gplace-run's files written after a run ---------------===//

#include "gplace/Tooling/Outputs.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

using namespace gplace;
namespace rt = gplace::runtime;
namespace fs = std::filesystem;

namespace {

rt::Status cannotWrite(const std::string &path, const std::string &why) {
  return rt::Status::invalidArgument("cannot write '" + path + "': " + why);
}

/// Whether `path` names an existing file that is neither regular nor a
/// directory (a device, a pipe): written in place.
bool isSpecial(const std::string &path) {
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  return fs::exists(status) && !fs::is_regular_file(status) &&
         !fs::is_directory(status);
}

} // namespace

rt::Status tooling::checkWritable(const std::string &path) {
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status))
    return cannotWrite(path, "it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status))
    return rt::Status::ok();
  fs::path target(path);
  fs::path directory = target.has_parent_path() ? target.parent_path() : ".";
  // As long as the longest name a writer gives its temporary file
  // (libzip's `.<name>.tmp<pid>.XXXXXX`, saveCheckpoint's); writeNpyFiles'
  // `<name>.partial<pid>` is shorter: a name too long for any of them is
  // refused here, before the run, not after it.
  std::string probe =
      (directory / ("." + target.filename().string() + ".probe" +
                    std::to_string(::getpid()) + ".XXXXXX"))
          .string();
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return cannotWrite(path, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return rt::Status::ok();
}

rt::Status tooling::writeNpyFiles(llvm::ArrayRef<std::string> paths,
                                  llvm::ArrayRef<rt::HostTensor> tensors) {
  std::vector<std::pair<std::string, std::string>> renames; // temp, path
  auto removeTemps = [&] {
    for (auto &[temp, path] : renames)
      ::unlink(temp.c_str());
  };
  for (size_t i = 0; i < paths.size() && i < tensors.size(); ++i) {
    if (isSpecial(paths[i]))
      continue;
    std::string temp = paths[i] + ".partial" + std::to_string(::getpid());
    if (rt::Status written = rt::writeNpy(temp, tensors[i]); !written) {
      removeTemps();
      // writeNpy names the temporary file: name the path asked for.
      std::string message = written.message();
      if (size_t at = message.find(temp); at != std::string::npos)
        message.replace(at, temp.size(), paths[i]);
      return rt::Status::error(written.code(), message);
    }
    renames.emplace_back(temp, paths[i]);
  }
  // Devices and pipes cannot be written aside: between the temporary files
  // and the renames, so that a failure there still touches no path.
  for (size_t i = 0; i < paths.size() && i < tensors.size(); ++i)
    if (isSpecial(paths[i]))
      if (rt::Status written = rt::writeNpy(paths[i], tensors[i]); !written) {
        removeTemps();
        return written;
      }
  for (size_t i = 0; i < renames.size(); ++i) {
    std::error_code error;
    fs::rename(renames[i].first, renames[i].second, error);
    if (error) {
      for (size_t j = i; j < renames.size(); ++j)
        ::unlink(renames[j].first.c_str());
      return cannotWrite(renames[i].second, error.message());
    }
  }
  return rt::Status::ok();
}

rt::Status tooling::writeFileAtomically(const std::string &path,
                                        llvm::StringRef bytes) {
  std::error_code error;
  if (fs::is_directory(path, error))
    return cannotWrite(path, "it is a directory");
  bool special = isSpecial(path);
  std::string target =
      special ? path : path + ".partial" + std::to_string(::getpid());
  {
    llvm::raw_fd_ostream os(target, error);
    if (!error) {
      os << bytes;
      os.close();
      error = os.error();
      // Reported here: an error left set aborts the tool when the stream
      // is destroyed ("IO failure on output stream").
      os.clear_error();
    }
  }
  if (!error && !special)
    error = llvm::sys::fs::rename(target, path);
  if (error) {
    if (!special)
      ::unlink(target.c_str());
    return cannotWrite(path, error.message());
  }
  return rt::Status::ok();
}
