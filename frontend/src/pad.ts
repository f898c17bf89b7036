// Entry point of the virtual pad app (frontend.PadApp, served by the
// browser surface in backend/surface/web).
import { PadApp } from "./pad/app";

if (typeof document !== "undefined") {
  new PadApp().start();
}
