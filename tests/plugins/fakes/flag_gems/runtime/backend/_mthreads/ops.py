"""A vendor ops module, imported with the vendor package like FlagGems' _<vendor>.ops."""
