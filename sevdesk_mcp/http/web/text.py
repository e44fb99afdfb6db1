"""The words of the pages, in German and English (chosen by ``kit.lang``: the ``lang`` field,
``Accept-Language``, the configured default); ``{time}`` is a moment in Europe/Berlin with its
zone named (``kit.page.when``)."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.http.kit.lang import Lang

TEXT: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "brand": "sevDesk assistant",
        "skip": "Skip to content",
        "inbox": "Approvals",
        "signed_in_as": "Signed in to {account}",
        "sign_out": "Sign out",
        "signin_title": "Sign in",
        "signin_lead": "Sign in with your sevDesk account to approve your assistant's actions and "
        "to exchange files with it.",
        "token": "Your sevDesk API token",
        "token_help": "In sevDesk: Settings, then Users, then your user: API token. It is checked "
        "with sevDesk once and not stored; this browser then stays signed in for 12 hours.",
        "signin_button": "Sign in",
        "signin_refused": "This sign-in did not come from this page. Open the page again and "
        "sign in there.",
        "signin_slow": "Too many sign-in attempts from here. Wait a few minutes, then try again.",
        "continue_title": "Continue",
        "continue_lead": "You came here from another site. Continue to open this page in your "
        "signed-in session.",
        "continue": "Continue",
        "inbox_title": "Approvals",
        "inbox_lead": "Actions your assistant prepared for {account} with your sevDesk token wait "
        "here for your decision (colleagues see only their own). Check that the reference "
        "matches the one your assistant named.",
        "inbox_what": "If you approve, your assistant does exactly what the card shows when it "
        "calls the action again; a warning says when it cannot be undone. If you decline, "
        "nothing is changed.",
        "inbox_empty": "Nothing waits for your decision.",
        "reference": "Reference",
        "tool": "Action",
        "expires": "Expires on {time}",
        "asked": "Asked on {time}",
        "asked_by": "Asked through",
        "connection": "connection",
        "approve": "Approve",
        "decline": "Decline",
        "approved": "Approved ({ref}). Go back to your assistant: the action runs when it calls "
        "the tool again with the same arguments.",
        "declined": "Declined ({ref}). Nothing will be changed.",
        "gone": "This approval is no longer open: it expired or was decided already. If the "
        "action is still wanted, ask your assistant to run it again.",
        "changed": "The records changed since your assistant first asked ({what}); the earlier "
        "request is void. Please review it again.",
        "uploads_title": "Files your assistant asked for",
        "upload_open": "Upload a file",
        "upload_title": "Upload a file for your assistant",
        "upload_lead": "Your assistant asked for a file (a receipt, for example). It can only use "
        "what you upload here; it never sees this page.",
        "upload_choose": "File",
        "upload_drop": "Drop the file here, or choose it.",
        "upload_limits": "PDF, PNG, JPEG or XML, at most {size} MiB. Link valid until {time}.",
        "upload_button": "Upload",
        "upload_done_title": "File received",
        "upload_done": "Received {name} ({type}, {size}). Go back to your assistant and tell it "
        "the file is uploaded.",
        "upload_gone": "This upload link is not valid any more: it expired, was used already, or "
        "belongs to someone else. Ask your assistant for a new upload link.",
        "too_large": "The file is larger than {size} MiB. Compress the scan or export the receipt "
        "as a smaller PDF.",
        "download_title": "Download a file",
        "download_lead": "Your assistant prepared this file for you. It can be downloaded once, "
        "until {time}.",
        "download_button": "Download {name}",
        "download_gone": "This download link is not valid any more: it expired, was used "
        "already, or belongs to someone else. Ask your assistant for the file again.",
        "refused": "This request did not come from this site's own pages. Open the page again "
        "and use its buttons.",
        "not_found": "There is no such page.",
        "error_title": "That did not work",
        "back_inbox": "Back to the approvals",
    },
    "de": {
        "brand": "sevDesk-Assistent",
        "skip": "Zum Inhalt springen",
        "inbox": "Freigaben",
        "signed_in_as": "Angemeldet bei {account}",
        "sign_out": "Abmelden",
        "signin_title": "Anmelden",
        "signin_lead": "Melden Sie sich mit Ihrem sevDesk-Konto an, um Aktionen Ihres Assistenten "
        "freizugeben und Dateien mit ihm auszutauschen.",
        "token": "Ihr sevDesk-API-Token",
        "token_help": "In sevDesk: Einstellungen, Benutzer, Ihr Benutzer: API-Token. Er wird "
        "einmal bei sevDesk geprüft und nicht gespeichert; dieser Browser bleibt dann 12 Stunden "
        "angemeldet.",
        "signin_button": "Anmelden",
        "signin_refused": "Diese Anmeldung kam nicht von dieser Seite. Öffnen Sie die Seite neu "
        "und melden Sie sich dort an.",
        "signin_slow": "Zu viele Anmeldeversuche von hier. Warten Sie einige Minuten und "
        "versuchen Sie es dann erneut.",
        "continue_title": "Weiter",
        "continue_lead": "Sie kommen von einer anderen Seite. Gehen Sie weiter, um diese Seite in "
        "Ihrer angemeldeten Sitzung zu öffnen.",
        "continue": "Weiter",
        "inbox_title": "Freigaben",
        "inbox_lead": "Aktionen, die Ihr Assistent mit Ihrem sevDesk-Token für {account} "
        "vorbereitet hat, warten hier auf Ihre Entscheidung (Kollegen sehen nur ihre eigenen). "
        "Prüfen Sie, ob die Referenz mit der übereinstimmt, die Ihr Assistent genannt hat.",
        "inbox_what": "Wenn Sie freigeben, führt Ihr Assistent genau das aus, was die Karte zeigt, "
        "sobald er die Aktion erneut aufruft; ein Warnhinweis sagt, wenn es sich nicht "
        "rückgängig machen lässt. Wenn Sie ablehnen, wird nichts geändert.",
        "inbox_empty": "Nichts wartet auf Ihre Entscheidung.",
        "reference": "Referenz",
        "tool": "Aktion",
        "expires": "Gültig bis {time}",
        "asked": "Angefragt am {time}",
        "asked_by": "Angefragt über",
        "connection": "Verbindung",
        "approve": "Freigeben",
        "decline": "Ablehnen",
        "approved": "Freigegeben ({ref}). Zurück zu Ihrem Assistenten: Die Aktion läuft, wenn er "
        "das Werkzeug erneut mit denselben Angaben aufruft.",
        "declined": "Abgelehnt ({ref}). Es wird nichts geändert.",
        "gone": "Diese Freigabe ist nicht mehr offen: Sie ist abgelaufen oder wurde schon "
        "entschieden. Bitten Sie Ihren Assistenten, die Aktion erneut auszuführen.",
        "changed": "Die Daten haben sich geändert, seit Ihr Assistent zuerst gefragt hat "
        "({what}); die frühere Anfrage ist ungültig. Bitte prüfen Sie erneut.",
        "uploads_title": "Dateien, um die Ihr Assistent gebeten hat",
        "upload_open": "Datei hochladen",
        "upload_title": "Eine Datei für Ihren Assistenten hochladen",
        "upload_lead": "Ihr Assistent hat um eine Datei gebeten (zum Beispiel einen Beleg). Er "
        "kann nur verwenden, was Sie hier hochladen; diese Seite sieht er nie.",
        "upload_choose": "Datei",
        "upload_drop": "Datei hierher ziehen oder auswählen.",
        "upload_limits": "PDF, PNG, JPEG oder XML, höchstens {size} MiB. Link gültig bis {time}.",
        "upload_button": "Hochladen",
        "upload_done_title": "Datei erhalten",
        "upload_done": "{name} erhalten ({type}, {size}). Gehen Sie zurück zu Ihrem Assistenten "
        "und sagen Sie ihm, dass die Datei hochgeladen ist.",
        "upload_gone": "Dieser Upload-Link ist nicht mehr gültig: Er ist abgelaufen, wurde schon "
        "benutzt oder gehört jemand anderem. Bitten Sie Ihren Assistenten um einen neuen.",
        "too_large": "Die Datei ist größer als {size} MiB. Komprimieren Sie den Scan oder "
        "exportieren Sie den Beleg als kleineres PDF.",
        "download_title": "Eine Datei herunterladen",
        "download_lead": "Ihr Assistent hat diese Datei für Sie vorbereitet. Sie kann einmal "
        "heruntergeladen werden, bis {time}.",
        "download_button": "{name} herunterladen",
        "download_gone": "Dieser Download-Link ist nicht mehr gültig: Er ist abgelaufen, wurde "
        "schon benutzt oder gehört jemand anderem. Bitten Sie Ihren Assistenten erneut "
        "um die Datei.",
        "refused": "Diese Anfrage kam nicht von den Seiten dieses Servers. Öffnen Sie die Seite "
        "neu und verwenden Sie ihre Schaltflächen.",
        "not_found": "Diese Seite gibt es nicht.",
        "error_title": "Das hat nicht geklappt",
        "back_inbox": "Zurück zu den Freigaben",
    },
}
