import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { createBridge, setBridge } from './bridge';
import './ui/base.css';

setBridge(createBridge());
createApp(App).use(createPinia()).mount('#app');
