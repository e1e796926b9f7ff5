#include <gtest/gtest.h>
TEST(UiTest, Placeholder) {}
