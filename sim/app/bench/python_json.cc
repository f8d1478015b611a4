#include "sim/app/bench/python_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace infergrid::bench {

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // Shortest round-trip digits in scientific form: "-1.2345e+02".
  char buffer[64];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<size_t>(r.ptr - buffer));
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t e = text.find('e');
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  std::string digits(text.substr(0, e));
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  // Python's float_repr_style 'short': positional while -4 < decpt <= 16.
  const int decpt = exponent + 1;
  std::string out = negative ? "-" : "";
  if (decpt > -4 && decpt <= 16) {
    const int n = static_cast<int>(digits.size());
    if (decpt <= 0) {
      absl::StrAppend(&out, "0.", std::string(static_cast<size_t>(-decpt), '0'), digits);
    } else if (decpt >= n) {
      absl::StrAppend(&out, digits, std::string(static_cast<size_t>(decpt - n), '0'), ".0");
    } else {
      absl::StrAppend(&out, digits.substr(0, static_cast<size_t>(decpt)), ".",
                      digits.substr(static_cast<size_t>(decpt)));
    }
    return out;
  }
  // Exponent form: mantissa without a trailing ".0", exponent signed, at least two digits.
  absl::StrAppend(&out, digits.substr(0, 1));
  if (digits.size() > 1) absl::StrAppend(&out, ".", digits.substr(1));
  char exp_text[16];
  std::snprintf(exp_text, sizeof(exp_text), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp_text;
}

namespace {

void AppendString(const std::string& text, std::string& out) {
  out.push_back('"');
  // Decode UTF-8 to code points; ensure_ascii escapes everything above 0x7e.
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    uint32_t cp = c;
    size_t length = 1;
    if (c >= 0xf0 && i + 3 < text.size()) {
      cp = ((c & 0x07U) << 18) | ((static_cast<unsigned char>(text[i + 1]) & 0x3fU) << 12) |
           ((static_cast<unsigned char>(text[i + 2]) & 0x3fU) << 6) | (static_cast<unsigned char>(text[i + 3]) & 0x3fU);
      length = 4;
    } else if (c >= 0xe0 && i + 2 < text.size()) {
      cp = ((c & 0x0fU) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3fU) << 6) |
           (static_cast<unsigned char>(text[i + 2]) & 0x3fU);
      length = 3;
    } else if (c >= 0xc0 && i + 1 < text.size()) {
      cp = ((c & 0x1fU) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3fU);
      length = 2;
    }
    i += length;
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    char escaped[16];
    if (cp < 0x20 || (cp > 0x7e && cp < 0x10000)) {
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", cp);
      out += escaped;
    } else if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      std::snprintf(escaped, sizeof(escaped), "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
      out += escaped;
    } else {
      out.push_back(static_cast<char>(cp));
    }
  }
  out.push_back('"');
}

void Append(const PyJson& value, int indent, int depth, std::string& out) {
  const auto newline = [&](int level) {
    out.push_back('\n');
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  const char* item_separator = indent < 0 ? ", " : ",";
  switch (value.type()) {
    case PyJson::value_t::null: out += "null"; return;
    case PyJson::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case PyJson::value_t::number_integer: absl::StrAppend(&out, value.get<int64_t>()); return;
    case PyJson::value_t::number_unsigned: absl::StrAppend(&out, value.get<uint64_t>()); return;
    case PyJson::value_t::number_float: out += PythonFloatRepr(value.get<double>()); return;
    case PyJson::value_t::string: AppendString(value.get_ref<const std::string&>(), out); return;
    case PyJson::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      out.push_back('[');
      bool first = true;
      for (const PyJson& item : value) {
        if (!first) out += item_separator;
        first = false;
        if (indent >= 0) newline(depth + 1);
        Append(item, indent, depth + 1, out);
      }
      if (indent >= 0) newline(depth);
      out.push_back(']');
      return;
    }
    case PyJson::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += item_separator;
        first = false;
        if (indent >= 0) newline(depth + 1);
        AppendString(key, out);
        out += ": ";
        Append(item, indent, depth + 1, out);
      }
      if (indent >= 0) newline(depth);
      out.push_back('}');
      return;
    }
    default: out += "null"; return;  // binary and discarded values never occur here
  }
}

}  // namespace

std::string DumpPythonJson(const PyJson& value, int indent) {
  std::string out;
  Append(value, indent, 0, out);
  return out;
}

}  // namespace infergrid::bench
