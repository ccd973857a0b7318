//===- Checkpoint.cpp - .npz checkpoints through libzip -------------------===//
//
// Each variable goes through the runtime's .npy writer and reader (a file
// in a private temporary directory), so the checkpoint's entries are
// exactly the .npy files gplace-run writes for --output.
//
//===----------------------------------------------------------------------===//

#include "gplace/Tooling/Checkpoint.h"

#include <zip.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace gplace;
namespace rt = gplace::runtime;
namespace fs = std::filesystem;

namespace {

/// The modification time of every entry: 1980-01-02 00:00:00 UTC, a day
/// after the zip epoch, so that it stays in DOS time's range (which zip
/// stores in local time) in every time zone.
constexpr time_t kEntryTime = 315619200;

/// A private temporary directory, removed with its files.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gplace-ckpt-XXXXXX");
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()))
      path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code error;
    if (!path_.empty())
      fs::remove_all(path_, error);
  }
  bool ok() const { return !path_.empty(); }
  std::string file(size_t i) const {
    return path_ + "/" + std::to_string(i) + ".npy";
  }

private:
  std::string path_;
};

/// fsyncs `path` (a file or a directory).
bool syncPath(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

} // namespace

rt::Status tooling::saveCheckpoint(const std::string &path,
                                   const rt::Executor &executor) {
  auto fail = [&](const std::string &why) {
    return rt::Status::invalidArgument("cannot save checkpoint '" + path +
                                       "': " + why);
  };
  // TensorFlow's Saver: "No variables to save" (libzip would write no
  // archive at all).
  if (executor.numVariables() == 0)
    return fail("the graph has no variables to save");
  // Renamed over at the end: a device or pipe would be replaced.
  std::error_code statusError;
  fs::file_status status = fs::status(path, statusError);
  if (fs::exists(status) && !fs::is_regular_file(status))
    return fail("not a regular file");
  TempDir temp;
  if (!temp.ok())
    return fail("cannot create a temporary directory");
  fs::path target(path);
  fs::path directory = target.has_parent_path() ? target.parent_path() : ".";
  std::string partial =
      (directory / ("." + target.filename().string() + ".tmp" +
                    std::to_string(::getpid())))
          .string();
  int error = 0;
  zip_t *archive = zip_open(partial.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_error_t zipError;
    zip_error_init_with_code(&zipError, error);
    std::string why = zip_error_strerror(&zipError);
    zip_error_fini(&zipError);
    return fail(why);
  }
  // Mirrored variables (one copy per replica, one name) are saved once;
  // their copies must be equal.
  std::map<std::string, std::vector<uint8_t>> saved;
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    rt::StatusOr<rt::HostTensor> value = executor.readVariable(i);
    if (!value) {
      zip_discard(archive);
      return value.status();
    }
    auto [copy, first] = saved.try_emplace(executor.variableName(i),
                                           value->data);
    if (!first) {
      if (copy->second == value->data)
        continue;
      zip_discard(archive);
      return fail("the copies of mirrored variable '" +
                  executor.variableName(i) + "' differ");
    }
    if (rt::Status written = rt::writeNpy(temp.file(i), *value); !written) {
      zip_discard(archive);
      return fail("variable '" + executor.variableName(i) +
                  "': " + written.message());
    }
    zip_source_t *source =
        zip_source_file(archive, temp.file(i).c_str(), 0, -1);
    zip_int64_t index =
        source ? zip_file_add(archive,
                              (executor.variableName(i) + ".npy").c_str(),
                              source, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8)
               : -1;
    if (index < 0) {
      if (source)
        zip_source_free(source);
      std::string why = zip_strerror(archive);
      zip_discard(archive);
      return fail(why);
    }
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                             ZIP_CM_STORE, 0);
    // A fixed time (about the zip epoch, which NumPy's savez writes), not
    // the temporary file's: the same weights give the same bytes.
    zip_file_set_mtime(archive, static_cast<zip_uint64_t>(index),
                       kEntryTime, 0);
  }
  if (zip_close(archive) != 0) {
    std::string why = zip_strerror(archive);
    zip_discard(archive);
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(why);
  }
  if (!syncPath(partial)) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(std::string("fsync: ") + std::strerror(errno));
  }
  std::error_code renameError;
  fs::rename(partial, target, renameError);
  if (renameError) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(renameError.message());
  }
  syncPath(directory.string());
  return rt::Status::ok();
}

rt::Status tooling::restoreCheckpoint(const std::string &path,
                                      rt::Executor &executor) {
  auto fail = [&](const std::string &why) {
    return rt::Status::invalidArgument("cannot restore checkpoint '" + path +
                                       "': " + why);
  };
  std::error_code fsError;
  if (!fs::is_regular_file(path, fsError))
    return fail(fs::exists(path, fsError) ? "not a regular file"
                                          : "no such file");
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!archive)
    return fail("not an .npz checkpoint (a zip archive of .npy files)");
  TempDir temp;
  if (!temp.ok()) {
    zip_discard(archive);
    return fail("cannot create a temporary directory");
  }
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    const std::string &name = executor.variableName(i);
    zip_int64_t index = zip_name_locate(archive, (name + ".npy").c_str(), 0);
    if (index < 0) {
      zip_discard(archive);
      return rt::Status::invalidArgument("Key " + name +
                                         " not found in checkpoint " + path);
    }
    zip_stat_t stat;
    zip_file_t *entry = zip_fopen_index(archive, index, 0);
    if (!entry || zip_stat_index(archive, index, 0, &stat) != 0) {
      if (entry)
        zip_fclose(entry);
      zip_discard(archive);
      return fail("cannot read entry " + name + ".npy");
    }
    {
      std::ofstream out(temp.file(i), std::ios::binary);
      std::vector<char> buffer(1 << 16);
      zip_int64_t got;
      while ((got = zip_fread(entry, buffer.data(), buffer.size())) > 0)
        out.write(buffer.data(), got);
      zip_fclose(entry);
      if (got < 0 || !out) {
        zip_discard(archive);
        return fail("cannot read entry " + name + ".npy");
      }
    }
    rt::StatusOr<rt::HostTensor> value = rt::readNpy(temp.file(i));
    if (!value) {
      zip_discard(archive);
      return fail("entry " + name + ".npy: " + value.status().message());
    }
    if (value->type != executor.variableType(i)) {
      zip_discard(archive);
      return rt::Status::invalidArgument(
          "variable '" + name + "' is " + executor.variableType(i).str() +
          " in the graph but " + value->type.str() + " in checkpoint " + path);
    }
    if (rt::Status written = executor.writeVariable(i, *value); !written) {
      zip_discard(archive);
      return written;
    }
  }
  zip_discard(archive);
  return rt::Status::ok();
}

rt::StatusOr<tooling::VariableValues>
tooling::readVariables(const rt::Executor &executor,
                       const std::set<std::string> &names) {
  VariableValues values;
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    if (values.count(executor.variableName(i)) ||
        !names.count(executor.variableName(i)))
      continue;
    rt::StatusOr<rt::HostTensor> value = executor.readVariable(i);
    if (!value)
      return value.status();
    values.emplace(executor.variableName(i), std::move(*value));
  }
  return values;
}

rt::Status tooling::initializeVariables(const VariableValues &initial,
                                        rt::Executor &to) {
  for (size_t i = 0; i < to.numVariables(); ++i) {
    auto it = initial.find(to.variableName(i));
    if (it == initial.end())
      continue;
    if (it->second.type != to.variableType(i))
      return rt::Status::invalidArgument(
          "variable '" + to.variableName(i) + "' is " + it->second.type.str() +
          " in the initialisation function but " + to.variableType(i).str() +
          " in the entry");
    GPLACE_RETURN_IF_ERROR(to.writeVariable(i, it->second));
  }
  return rt::Status::ok();
}
