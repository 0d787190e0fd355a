// A toast: what the user sees in a corner of the TUI.
import type { ToastVariant } from "./port.js"

export interface Notice {
  variant: ToastVariant
  title: string
  message: string
  duration?: number
}
