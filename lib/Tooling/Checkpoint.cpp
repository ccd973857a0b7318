//===- Checkpoint.cpp - .npz checkpoints through libzip -------------------===//
//
// Each variable goes through the runtime's .npy encoder and decoder in
// memory, straight into and out of the archive (no temporary directory: a
// missing or full TMPDIR cannot lose a training's weights), so the
// checkpoint's entries are exactly the .npy files gplace-run writes for
// --output.
//
//===----------------------------------------------------------------------===//

#include "gplace/Tooling/Checkpoint.h"
#include "gplace/Support/Shape.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <signal.h>
#include <unistd.h>

using namespace gplace;
namespace rt = gplace::runtime;
namespace fs = std::filesystem;

namespace {

/// The modification time of every entry: 1980-01-02 00:00:00 UTC, a day
/// after the zip epoch, so that it stays in DOS time's range (which zip
/// stores in local time) in every time zone.
constexpr time_t kEntryTime = 315619200;

/// fsyncs `path` (a file or a directory).
bool syncPath(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

/// The file libzip writes a checkpoint's archive to: a zip source
/// (zip_source_function_create) that writes `path` itself, through a
/// buffer of its own, in chunks of kBufferBytes with pwrite(2). libzip's
/// own file source writes through stdio, 4 KiB a write(2) (about 131,000
/// for a 512 MiB checkpoint), into a temporary of its own that it renames;
/// here the archive goes straight into `path` (saveCheckpoint's partial
/// file, itself renamed over the checkpoint), fsynced when libzip commits
/// it and removed when libzip rolls back (an error while zip_close
/// writes). libzip writes at most 8 KiB at a time (its copy buffer) and
/// seeks back to complete each entry's local header: writes are
/// collected while contiguous, and the buffer is flushed before any other.
///
/// The source only writes: it reports the file as absent (zip_open with
/// ZIP_TRUNCATE starts an empty archive), and refuses to be read.
class PartialFile {
public:
  explicit PartialFile(std::string path) : path(std::move(path)) {
    zip_error_init(&error);
  }
  PartialFile(const PartialFile &) = delete;
  PartialFile &operator=(const PartialFile &) = delete;
  ~PartialFile() {
    if (fd >= 0)
      ::close(fd);
    zip_error_fini(&error);
  }

  /// The zip_source_callback; `state` is the PartialFile.
  static zip_int64_t callback(void *state, void *data, zip_uint64_t length,
                              zip_source_cmd_t command) {
    return static_cast<PartialFile *>(state)->handle(data, length, command);
  }

  /// What failed, naming the file and the system's error ("cannot write
  /// '/d/.m.npz.tmp42': No space left on device"); empty while nothing
  /// has.
  const std::string &failure() const { return why; }

private:
  /// The buffer's size: writes large enough to cost nothing as calls
  /// (2,048 for 512 MiB), a buffer small enough to stay in the core's L2
  /// cache between libzip's copy into it and the kernel's out of it (on
  /// the 2-core Xeon of bench/results/2026-11-29-checkpoint.md, a 512 MiB
  /// save took a median 0.33 s of CPU with 256 KiB, 0.37 s with 1 MiB and
  /// about 1.2 s with 4 MiB).
  static constexpr size_t kBufferBytes = size_t(256) << 10;

  zip_int64_t handle(void *data, zip_uint64_t length,
                     zip_source_cmd_t command) {
    switch (command) {
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(
          ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_SEEK,
          ZIP_SOURCE_TELL, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
          ZIP_SOURCE_SUPPORTS, ZIP_SOURCE_BEGIN_WRITE, ZIP_SOURCE_WRITE,
          ZIP_SOURCE_SEEK_WRITE, ZIP_SOURCE_TELL_WRITE,
          ZIP_SOURCE_COMMIT_WRITE, ZIP_SOURCE_ROLLBACK_WRITE,
          ZIP_SOURCE_REMOVE, -1);
    case ZIP_SOURCE_STAT:
      // Absent: zip_open_from_source then makes a new archive (it needs
      // the read commands advertised, and reads nothing).
      zip_error_set(&error, ZIP_ER_READ, ENOENT);
      return -1;
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&error, data, length);
    case ZIP_SOURCE_FREE:
      return 0;
    case ZIP_SOURCE_BEGIN_WRITE:
      return beginWrite();
    case ZIP_SOURCE_WRITE:
      return write(static_cast<const uint8_t *>(data), length);
    case ZIP_SOURCE_SEEK_WRITE: {
      zip_int64_t to = zip_source_seek_compute_offset(position, end, data,
                                                      length, &error);
      if (to < 0)
        return -1;
      position = static_cast<uint64_t>(to);
      return 0;
    }
    case ZIP_SOURCE_TELL_WRITE:
      return static_cast<zip_int64_t>(position);
    case ZIP_SOURCE_COMMIT_WRITE:
      return commitWrite();
    case ZIP_SOURCE_ROLLBACK_WRITE:
      rollbackWrite();
      return 0;
    case ZIP_SOURCE_REMOVE:
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        return failSystem(ZIP_ER_REMOVE, "cannot remove");
      return 0;
    default:
      zip_error_set(&error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
    }
  }

  /// Records the failure of `what` (errno's) for libzip (`zipError`) and
  /// failure(); returns -1.
  zip_int64_t failSystem(int zipError, const char *what) {
    int system = errno;
    zip_error_set(&error, zipError, system);
    if (why.empty())
      why = std::string(what) + " '" + path + "': " + std::strerror(system);
    return -1;
  }

  zip_int64_t beginWrite() {
    // A new file, not one a stale partial of a process with this pid
    // left (nor what a link there points to).
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return failSystem(ZIP_ER_TMPOPEN, "cannot replace");
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
      return failSystem(ZIP_ER_TMPOPEN, "cannot create");
    if (!buffer)
      buffer.reset(new uint8_t[kBufferBytes]);
    bufferStart = bufferLength = position = end = 0;
    return 0;
  }

  /// Writes `size` bytes at `offset` of the file, all of them (a short
  /// write is continued, an interrupted one retried).
  bool writeAt(const uint8_t *bytes, size_t size, uint64_t offset) {
    while (size > 0) {
      ssize_t wrote = ::pwrite(fd, bytes, size, static_cast<off_t>(offset));
      if (wrote < 0) {
        if (errno == EINTR)
          continue;
        return false;
      }
      if (wrote == 0) { // Not expected of a regular file; not a loop.
        errno = EIO;
        return false;
      }
      bytes += wrote;
      size -= static_cast<size_t>(wrote);
      offset += static_cast<uint64_t>(wrote);
    }
    return true;
  }

  /// Writes the buffer out and empties it (to start at `position`).
  bool flush() {
    if (bufferLength > 0 && !writeAt(buffer.get(), bufferLength, bufferStart))
      return false;
    bufferStart = position;
    bufferLength = 0;
    return true;
  }

  zip_int64_t write(const uint8_t *bytes, zip_uint64_t length) {
    if (fd < 0) {
      zip_error_set(&error, ZIP_ER_INTERNAL, 0);
      return -1;
    }
    // The buffer holds [bufferStart, bufferStart + bufferLength) of the
    // file; a write that neither overlaps nor extends it starts anew.
    if (position < bufferStart || position > bufferStart + bufferLength)
      if (!flush())
        return failSystem(ZIP_ER_WRITE, "cannot write");
    zip_uint64_t left = length;
    while (left > 0) {
      size_t at = static_cast<size_t>(position - bufferStart);
      if (at == kBufferBytes) {
        if (!flush())
          return failSystem(ZIP_ER_WRITE, "cannot write");
        at = 0;
      }
      if (bufferLength == 0 && left >= kBufferBytes) {
        // As large as the buffer: written where it lies.
        if (!writeAt(bytes, static_cast<size_t>(left), position))
          return failSystem(ZIP_ER_WRITE, "cannot write");
        position += left;
        bufferStart = position;
        break;
      }
      size_t chunk = static_cast<size_t>(
          std::min<zip_uint64_t>(left, kBufferBytes - at));
      std::memcpy(buffer.get() + at, bytes, chunk);
      bufferLength = std::max(bufferLength, at + chunk);
      bytes += chunk;
      left -= chunk;
      position += chunk;
    }
    end = std::max(end, position);
    return static_cast<zip_int64_t>(length);
  }

  zip_int64_t commitWrite() {
    if (!flush())
      return failSystem(ZIP_ER_WRITE, "cannot write");
    if (::fsync(fd) != 0)
      return failSystem(ZIP_ER_WRITE, "cannot fsync");
    int closing = fd;
    fd = -1;
    if (::close(closing) != 0)
      return failSystem(ZIP_ER_CLOSE, "cannot close");
    return 0;
  }

  /// Closes and removes the file (an error while writing it): no torn
  /// archive is left.
  void rollbackWrite() {
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
    ::unlink(path.c_str());
    bufferLength = 0;
  }

  std::string path;
  int fd = -1;
  std::unique_ptr<uint8_t[]> buffer;
  uint64_t bufferStart = 0; ///< The file offset of buffer[0].
  size_t bufferLength = 0;  ///< The bytes of the buffer to write.
  uint64_t position = 0;    ///< Where libzip writes next.
  uint64_t end = 0;         ///< The file's size, with the buffer's bytes.
  zip_error_t error;
  std::string why;
};

/// The bytes of entry `index` of `archive`, at most 4 KiB (a scalar's
/// .npy), its CRC-32 checked.
rt::StatusOr<std::string> readSmallEntry(zip_t *archive, zip_uint64_t index) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE) || stat.size > 4096)
    return rt::Status::invalidArgument("unreadable or too large");
  zip_file_t *entry = zip_fopen_index(archive, index, 0);
  if (!entry)
    return rt::Status::invalidArgument(zip_strerror(archive));
  std::string bytes(static_cast<size_t>(stat.size), '\0');
  zip_int64_t got =
      bytes.empty() ? 0 : zip_fread(entry, bytes.data(), bytes.size());
  char extra;
  zip_int64_t more = zip_fread(entry, &extra, 1);
  std::string why = got < 0 || more < 0 ? zip_file_strerror(entry) : "";
  zip_fclose(entry);
  if (got != static_cast<zip_int64_t>(bytes.size()) || more != 0)
    return rt::Status::invalidArgument(why.empty() ? "short read" : why);
  return bytes;
}

/// Removes the partial files that killed writers of the checkpoint
/// `name` in `directory` left: `.<name>.tmp<pid>` (saveCheckpoint's) and
/// `.<name>.tmp<pid>.<suffix>` (libzip's, written by zip_close and renamed
/// to the former), where no process `pid` runs on this machine. Those of
/// running processes (a concurrent writer) are kept; errors are ignored (a
/// stale file wastes space, nothing else).
void removeStalePartials(const fs::path &directory, const std::string &name) {
  std::string prefix = "." + name + ".tmp";
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error)
    return;
  std::vector<fs::path> stale;
  for (const fs::directory_entry &entry : it) {
    // filename() is a temporary: keep its string while `file` views it.
    std::string fileName = entry.path().filename().string();
    llvm::StringRef file = fileName;
    if (!file.consume_front(prefix))
      continue;
    llvm::StringRef digits = file.take_while(
        [](char c) { return c >= '0' && c <= '9'; });
    llvm::StringRef rest = file.drop_front(digits.size());
    if (digits.empty() || (!rest.empty() && !rest.starts_with(".")))
      continue;
    long long pid = 0;
    if (digits.getAsInteger(10, pid) || pid <= 0 || pid > INT32_MAX)
      continue;
    if (pid == ::getpid())
      continue; // This process's (none is left after a save).
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue; // Running (or another user's): maybe a live writer.
    stale.push_back(entry.path());
  }
  for (const fs::path &file : stale)
    fs::remove(file, error);
}

} // namespace

/// The .npy header of the checkpoint entry for variable `name` of `type`.
/// Errors (invalid argument): a name that np.load or unzip would take
/// outside the folder it extracts to (an ONNX initializer named '../../x'),
/// a type NumPy has no dtype for (bf16).
static rt::StatusOr<std::string> entryHeader(llvm::StringRef name,
                                             const rt::TensorType &type) {
  bool unsafe = name.empty() || name.starts_with("/");
  llvm::SmallVector<llvm::StringRef> parts;
  name.split(parts, '/');
  for (llvm::StringRef part : parts)
    unsafe |= part.empty() || part == "." || part == "..";
  if (unsafe)
    return rt::Status::invalidArgument(
        "variable name '" + name.str() +
        "' cannot name a checkpoint entry (an empty, '.' or '..' path "
        "component, or a leading '/'); rename the variable");
  rt::StatusOr<std::string> header = rt::encodeNpyHeader(type);
  if (!header)
    return rt::Status::invalidArgument("variable '" + name.str() +
                                       "': " + header.status().message());
  return header;
}

rt::Status tooling::checkSavable(const std::string &path,
                                 const rt::Plan &plan) {
  for (const rt::PersistentDesc &persistent : plan.persistents)
    if (persistent.isVariable)
      if (rt::StatusOr<std::string> header =
              entryHeader(persistent.name, persistent.initialValue.type);
          !header)
        return rt::Status::invalidArgument("cannot save checkpoint '" + path +
                                           "': " + header.status().message());
  return rt::Status::ok();
}

rt::Status tooling::saveCheckpoint(const std::string &path,
                                   const rt::Executor &executor,
                                   std::optional<int64_t> globalStep) {
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
  fs::path target(path);
  fs::path directory = target.has_parent_path() ? target.parent_path() : ".";
  std::string partial =
      (directory / ("." + target.filename().string() + ".tmp" +
                    std::to_string(::getpid())))
          .string();
  // Written by libzip through `file` (which outlives the archive).
  PartialFile file(partial);
  zip_t *archive = nullptr;
  {
    zip_error_t openError;
    zip_error_init(&openError);
    zip_source_t *source =
        zip_source_function_create(&PartialFile::callback, &file, &openError);
    if (source) {
      archive = zip_open_from_source(source, ZIP_CREATE | ZIP_TRUNCATE,
                                     &openError);
      if (!archive)
        zip_source_free(source);
    }
    std::string why = archive ? "" : zip_error_strerror(&openError);
    zip_error_fini(&openError);
    if (!archive)
      return fail(why);
  }
  // Mirrored variables (one copy per replica, one name) are saved once;
  // their copies must be equal. Each entry is its .npy header and the
  // variable's bytes where they lie (two fragments of one zip source, not
  // a copy: a 512 MiB variable took three more copies and 4x dd's time):
  // the executor's own buffer in host memory, or a copy read from a GPU;
  // alive (in the map, whose nodes never move) until zip_close writes them.
  struct Entry {
    std::string header;
    rt::HostTensor copy; ///< Read from a GPU, or made here; else empty.
    const uint8_t *data = nullptr;
    size_t size = 0;
  };
  std::map<std::string, Entry> saved;
  // Adds `entry` as the stored zip entry `<name>.npy`; false on libzip's
  // error.
  auto addEntry = [&](const std::string &name, Entry &entry) {
    // libzip only reads the fragments (the source is not written to).
    zip_buffer_fragment_t fragments[2] = {
        {reinterpret_cast<zip_uint8_t *>(entry.header.data()),
         entry.header.size()},
        {const_cast<uint8_t *>(entry.data), entry.size}};
    zip_source_t *source = zip_source_buffer_fragment(archive, fragments, 2, 0);
    zip_int64_t index =
        source ? zip_file_add(archive, (name + ".npy").c_str(), source,
                              ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8)
               : -1;
    if (index < 0) {
      if (source)
        zip_source_free(source);
      return false;
    }
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                             ZIP_CM_STORE, 0);
    // A fixed time (about the zip epoch, which NumPy's savez writes), not
    // the clock's: the same weights give the same bytes.
    zip_file_set_mtime(archive, static_cast<zip_uint64_t>(index),
                       kEntryTime, 0);
    return true;
  };
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    rt::TensorRef view = executor.hostVariable(i);
    rt::HostTensor copy;
    if (!view.data) {
      rt::StatusOr<rt::HostTensor> value = executor.readVariable(i);
      if (!value) {
        zip_discard(archive);
        return value.status();
      }
      copy = std::move(*value);
    }
    const uint8_t *data =
        view.data ? static_cast<const uint8_t *>(view.data) : copy.data.data();
    size_t size = static_cast<size_t>(view.type->bytes());
    auto [entry, first] = saved.try_emplace(executor.variableName(i));
    if (!first) {
      if (entry->second.size == size &&
          (size == 0 || std::memcmp(entry->second.data, data, size) == 0))
        continue;
      zip_discard(archive);
      return fail("the copies of mirrored variable '" +
                  executor.variableName(i) + "' differ");
    }
    rt::StatusOr<std::string> header =
        entryHeader(executor.variableName(i), *view.type);
    if (!header) {
      zip_discard(archive);
      return fail(header.status().message());
    }
    Entry &saving = entry->second;
    saving.header = std::move(*header);
    saving.copy = std::move(copy);
    saving.data = view.data ? data : saving.copy.data.data();
    saving.size = size;
    if (!addEntry(executor.variableName(i), saving)) {
      std::string why = zip_strerror(archive);
      zip_discard(archive);
      return fail(why);
    }
  }
  // The training steps run, after the variables (a graph's own variable
  // of that name takes the entry).
  if (globalStep && !saved.count(kGlobalStepEntry)) {
    Entry &step = saved[kGlobalStepEntry];
    step.copy = rt::HostTensor(rt::TensorType{ElementType::I64, {}});
    std::memcpy(step.copy.data.data(), &*globalStep, sizeof(int64_t));
    step.data = step.copy.data.data();
    step.size = step.copy.data.size();
    rt::StatusOr<std::string> header = rt::encodeNpyHeader(step.copy.type);
    if (header)
      step.header = std::move(*header);
    if (!header || !addEntry(kGlobalStepEntry, step)) {
      std::string why =
          header ? zip_strerror(archive) : header.status().message();
      zip_discard(archive);
      return fail(why);
    }
  }
  // Writes the archive into `partial`, fsynced (PartialFile); on an
  // error, libzip rolls back, which removes it.
  if (zip_close(archive) != 0) {
    std::string why =
        file.failure().empty() ? zip_strerror(archive) : file.failure();
    zip_discard(archive);
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(why);
  }
  std::error_code renameError;
  fs::rename(partial, target, renameError);
  if (renameError) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(renameError.message());
  }
  syncPath(directory.string());
  removeStalePartials(directory, target.filename().string());
  return rt::Status::ok();
}

rt::Status tooling::checkRestorable(const std::string &path) {
  std::error_code fsError;
  if (!fs::is_regular_file(path, fsError))
    return rt::Status::invalidArgument(
        "cannot restore checkpoint '" + path + "': " +
        (fs::exists(path, fsError) ? "not a regular file" : "no such file"));
  return rt::Status::ok();
}

rt::Status tooling::restoreCheckpoint(const std::string &path,
                                      rt::Executor &executor,
                                      std::optional<int64_t> *globalStep) {
  auto fail = [&](const std::string &why) {
    return rt::Status::invalidArgument("cannot restore checkpoint '" + path +
                                       "': " + why);
  };
  GPLACE_RETURN_IF_ERROR(checkRestorable(path));
  int error = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (!archive)
    return fail("not an .npz checkpoint (a zip archive of .npy files)");
  // An entry may appear twice: the last one counts, as NumPy's np.load
  // reads an .npz (Python's zipfile keeps the last of a name).
  std::map<std::string, zip_uint64_t> lastEntry;
  zip_int64_t numEntries = zip_get_num_entries(archive, 0);
  for (zip_int64_t e = 0; e < numEntries; ++e)
    if (const char *entryName = zip_get_name(archive, e, ZIP_FL_ENC_GUESS))
      lastEntry[entryName] = static_cast<zip_uint64_t>(e);
  // Variable i's value from its entry. Errors: a missing entry (TensorFlow's
  // "Key w not found in checkpoint"), one that cannot be read, or of
  // another type.
  auto readEntry = [&](size_t i) -> rt::StatusOr<rt::HostTensor> {
    const std::string &name = executor.variableName(i);
    auto found = lastEntry.find(name + ".npy");
    if (found == lastEntry.end())
      return rt::Status::invalidArgument("Key " + name +
                                         " not found in checkpoint " + path);
    zip_uint64_t index = found->second;
    // The entry's size, checked against the variable's before inflating
    // it: a small archive must not inflate to gigabytes.
    const rt::TensorType &type = executor.variableType(i);
    std::optional<int64_t> dataBytes =
        checkedTensorBytes(type.shape, type.elementType);
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0 ||
        !(stat.valid & ZIP_STAT_SIZE))
      return fail("cannot read entry " + name + ".npy");
    // A .npy header is at most a few KiB for any shape gplace has; 1 MiB
    // leaves room for NumPy's longest.
    constexpr zip_uint64_t kHeaderRoom = zip_uint64_t(1) << 20;
    if (!dataBytes ||
        stat.size > static_cast<zip_uint64_t>(*dataBytes) + kHeaderRoom)
      return fail("entry " + name + ".npy holds " + std::to_string(stat.size) +
                  " bytes, more than variable '" + name + "' (" + type.str() +
                  ") can take");
    zip_file_t *entry = zip_fopen_index(archive, index, 0);
    if (!entry)
      return fail("cannot read entry " + name + ".npy");
    std::string bytes(static_cast<size_t>(stat.size), '\0');
    zip_int64_t got =
        bytes.empty() ? 0 : zip_fread(entry, bytes.data(), bytes.size());
    // Reading past the end checks the entry's CRC-32.
    char extra;
    zip_int64_t more = zip_fread(entry, &extra, 1);
    std::string readError = got < 0 || more < 0 ? zip_file_strerror(entry) : "";
    zip_fclose(entry);
    if (got != static_cast<zip_int64_t>(bytes.size()) || more != 0)
      return fail("entry " + name + ".npy: " +
                  (readError.empty() ? std::string("its size is not as stated")
                                     : readError));
    rt::StatusOr<rt::HostTensor> value = rt::decodeNpy(bytes);
    if (!value)
      return fail("entry " + name + ".npy: " + value.status().message());
    if (value->type != executor.variableType(i))
      return rt::Status::invalidArgument(
          "variable '" + name + "' is " + executor.variableType(i).str() +
          " in the graph but " + value->type.str() + " in checkpoint " + path);
    return value;
  };
  // All or nothing: every entry is read and checked first (and read again
  // to be written, so that a large model is not held twice), so that a
  // checkpoint of another model changes no variable.
  for (size_t i = 0; i < executor.numVariables(); ++i)
    if (rt::StatusOr<rt::HostTensor> value = readEntry(i); !value) {
      zip_discard(archive);
      return value.status();
    }
  if (globalStep) {
    *globalStep = std::nullopt;
    // A variable of the graph of that name (TensorFlow's
    // get_or_create_global_step, which the graph increments each step) is
    // the count if it is an int64 scalar; of another type, there is none.
    std::optional<rt::TensorType> variableType;
    for (size_t i = 0; i < executor.numVariables(); ++i)
      if (executor.variableName(i) == kGlobalStepEntry)
        variableType = executor.variableType(i);
    auto found = lastEntry.find(std::string(kGlobalStepEntry) + ".npy");
    if ((!variableType ||
         *variableType == rt::TensorType{ElementType::I64, {}}) &&
        found != lastEntry.end()) {
      rt::StatusOr<std::string> bytes = readSmallEntry(archive, found->second);
      rt::StatusOr<rt::HostTensor> value =
          bytes ? rt::decodeNpy(*bytes)
                : rt::StatusOr<rt::HostTensor>(bytes.status());
      int64_t step = -1;
      if (value && value->type == rt::TensorType{ElementType::I64, {}})
        std::memcpy(&step, value->data.data(), sizeof(step));
      if (step < 0) {
        zip_discard(archive);
        return fail(std::string("entry ") + kGlobalStepEntry +
                    ".npy must be an int64 scalar >= 0 (the training steps "
                    "run)" +
                    (!value ? ": " + value.status().message()
                     : value->type == rt::TensorType{ElementType::I64, {}}
                         ? ", it is " + std::to_string(step)
                         : ", it is " + value->type.str()));
      }
      *globalStep = step;
    }
  }
  // Then written (the count above is checked first too).
  for (size_t i = 0; i < executor.numVariables(); ++i) {
    rt::StatusOr<rt::HostTensor> value = readEntry(i);
    rt::Status written =
        value ? executor.writeVariable(i, *value) : value.status();
    if (!written) {
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
