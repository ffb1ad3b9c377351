// Copy buttons for the citation on a document page. The citation is on the
// page as text to select without JavaScript; this only adds the buttons.
document.addEventListener("DOMContentLoaded", () => {
  const buttons = document.querySelectorAll("button[data-copy]");
  if (!buttons.length || !navigator.clipboard) return;
  const status = document.querySelector(".copy-status");
  for (const button of buttons) {
    button.closest("[hidden]")?.removeAttribute("hidden");
    button.addEventListener("click", async () => {
      const text = document.getElementById(button.dataset.copy).textContent;
      try {
        await navigator.clipboard.writeText(text.trim());
        status.textContent = "Copied.";
      } catch {
        status.textContent = "Select the text and copy it instead.";
      }
    });
  }
});
