// The virtual pad (placeholder while the app is being written).
if (typeof document !== "undefined") {
  const app = document.getElementById("app");
  if (app) app.textContent = "Lets Pad is starting…";
}
