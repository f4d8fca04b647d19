// pread: one exact-size pread(2) per request (continued only after a short
// read), the baseline every other method is compared with.
#include "storebench/io/methods.h"

namespace storebench::io {

const MethodInfo kPreadInfo = {"pread", kCapDirect, "exact-size pread(2) per request"};

namespace {

class PreadMethod final : public ReadMethod {
 public:
  explicit PreadMethod(const MethodOptions& o) : ReadMethod(kPreadInfo.name, kPreadInfo.capabilities, o) {
    set_plain_pread();
  }

 protected:
  StatusOr<ReadSubmitResult> DoSubmit(const ReadRequest& req, ReadCompletion* done) override {
    const ReadOutcome r = PlainPread(req.file, req.buf, req.length, req.offset);
    *done = MakeCompletion(req, r.bytes, r.error);
    return ReadSubmitResult::kCompleted;
  }
  std::string_view ReadOpName() const override { return "pread"; }
};

}  // namespace

std::unique_ptr<ReadMethod> NewPread(const MethodOptions& options) { return std::make_unique<PreadMethod>(options); }

}  // namespace storebench::io
