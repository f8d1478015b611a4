// A plain-text table: the first column left-aligned, the others right-aligned, two spaces apart.
#ifndef INFERGRID_SIM_APP_FORMAT_TEXT_TABLE_H_
#define INFERGRID_SIM_APP_FORMAT_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace infergrid::format {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace infergrid::format

#endif  // INFERGRID_SIM_APP_FORMAT_TEXT_TABLE_H_
