// The desktop notification command of each platform, found on PATH when it runs (so a test can put
// a recording stub there). A platform without one gets none, and no error.

export interface DesktopCommand {
  file: string
  args: string[]
}

export function desktopCommand(platform: NodeJS.Platform, title: string, message: string): DesktopCommand | undefined {
  switch (platform) {
    case "linux":
    case "freebsd":
    case "openbsd":
      return { file: "notify-send", args: [title, message] }
    case "darwin":
      return {
        file: "osascript",
        args: ["-e", `display notification ${appleScriptString(message)} with title ${appleScriptString(title)}`],
      }
    case "win32":
      return { file: "powershell", args: ["-NoProfile", "-NonInteractive", "-Command", windowsToast(title, message)] }
    default:
      return undefined
  }
}

const appleScriptString = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`

/** A PowerShell literal: single quotes, each inner one doubled (nothing inside is interpreted). */
const powerShellString = (text: string) => `'${text.replace(/'/g, "''")}'`

function windowsToast(title: string, message: string): string {
  return [
    "[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] " +
      "> $null",
    "$xml = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent(" +
      "[Windows.UI.Notifications.ToastTemplateType]::ToastText02)",
    "$texts = $xml.GetElementsByTagName('text')",
    `$texts.Item(0).AppendChild($xml.CreateTextNode(${powerShellString(title)})) > $null`,
    `$texts.Item(1).AppendChild($xml.CreateTextNode(${powerShellString(message)})) > $null`,
    "[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('OpenCode')" +
      ".Show([Windows.UI.Notifications.ToastNotification]::new($xml))",
  ].join("; ")
}
